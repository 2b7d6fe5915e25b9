# Seed 002's fio table scaled down for blkmc simulate: psync (sync,
# iodepth=1) 512-byte sequential reads by 8 jobs that all start at
# offset 0 of one device (numjobs=16 and 32 there), cyclic over 8 sectors;
# single MG04ACA400N-like rotational disk.
device depth=2 slot=1 spindles=1 rotational=1 service=2 seek=8
proc job0 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job1 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job2 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job3 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job4 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job5 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job6 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
proc job7 dir=R sync=1 cyclic=1 stream=8 start=0 stride=1
