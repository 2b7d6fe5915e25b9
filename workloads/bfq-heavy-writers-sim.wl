# Seed 003's global-dhp__io-fio-randread-sync-heavywrite for blkmc simulate:
# a psync random reader (think 1 tick) against three async sequential
# writers, cyclic, on a rotational disk that does not queue.
device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=2
proc reader dir=R sync=1 think=1 cyclic=1 reqs=0,60,20,90,35,70,5,50
proc w1 dir=W sync=0 cyclic=1 stream=8 start=100 stride=1
proc w2 dir=W sync=0 cyclic=1 stream=8 start=150 stride=1
proc w3 dir=W sync=0 cyclic=1 stream=8 start=200 stride=1
fair reader w1
