# Seed 002's fio table scaled down for blkmc simulate: psync (sync,
# iodepth=1) 512-byte sequential reads and writes mixed 50/50 (rw) by 8 jobs that all start at
# offset 0 of one device (numjobs=16 and 32 there), cyclic over 8 sectors;
# 2-disk RAID-0 behind a controller: two spindles serve at once.
device depth=4 slot=1 spindles=2 rotational=1 service=2 seek=8
proc job0 sync=1 cyclic=1 reqs=R0,W1,W2,W3,R4,W5,R6,W7
proc job1 sync=1 cyclic=1 reqs=W0,R1,W2,W3,R4,R5,W6,R7
proc job2 sync=1 cyclic=1 reqs=R0,R1,W2,W3,W4,R5,R6,R7
proc job3 sync=1 cyclic=1 reqs=W0,R1,R2,R3,W4,W5,R6,W7
proc job4 sync=1 cyclic=1 reqs=W0,W1,W2,R3,R4,W5,R6,R7
proc job5 sync=1 cyclic=1 reqs=R0,W1,W2,R3,W4,W5,W6,W7
proc job6 sync=1 cyclic=1 reqs=W0,R1,R2,W3,R4,W5,W6,W7
proc job7 sync=1 cyclic=1 reqs=W0,W1,W2,R3,R4,W5,W6,W7
