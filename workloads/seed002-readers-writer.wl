# The fio shape of seed 002 scaled down: psync (sync, iodepth=1) sequential
# 512-byte jobs that all start at offset 0 (numjobs=16 there; two readers and
# one writer of three requests here) on a rotational disk.
device depth=2 slot=1 spindles=1 rotational=1 service=1 seek=1
proc reader0 dir=R sync=1 reqs=0,1,2
proc reader1 dir=R sync=1 reqs=0,1,2
proc writer dir=W sync=1 reqs=0,1,2
track reader1:0
