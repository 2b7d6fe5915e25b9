# A passthrough command inserted at head (scsi_execute -> blk_execute_rq with
# at_head, as during a mount) next to normal sync reads.
device depth=1 slot=1 spindles=1
proc reader dir=R sync=1 reqs=0,1
proc scsi dir=R sync=1 head=1 reqs=0
track reader:1
