# Two async sequential streams, one of reads and one of writes (fio rw at a
# queue depth): how unevenly does the scheduler share the device while both
# have requests waiting? mq-deadline prefers reads: a write batch starts only
# after writes_starved read batches, or when a write expired.
device depth=1 slot=1 spindles=1
proc reader dir=R sync=0 stream=8 start=0 stride=1
proc writer dir=W sync=0 stream=8 start=100 stride=1
fair reader writer
