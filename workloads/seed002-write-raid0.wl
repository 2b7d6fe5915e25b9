# Seed 002's fio table scaled down for blkmc simulate: psync (sync,
# iodepth=1) 512-byte sequential writes by 8 jobs that all start at
# offset 0 of one device (numjobs=16 and 32 there), cyclic over 8 sectors;
# 2-disk RAID-0 behind a controller: two spindles serve at once.
device depth=4 slot=1 spindles=2 rotational=1 service=2 seek=8
proc job0 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job1 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job2 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job3 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job4 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job5 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job6 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
proc job7 dir=W sync=1 cyclic=1 stream=8 start=0 stride=1
