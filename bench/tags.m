-- tags.m -- Murphi (rumur) twin of blkmc's "tags" model and of bench/tags.pml:
-- blk-mq driver tags (bit set, then tags->rqs[] assigned, freed with rqs[]
-- left stale) racing with one busy-tag walk (bt_iter -> blk_mq_check_inflight).
--
-- Why it is written this way: rumur's "states" must equal blkmc's
-- `check tags --no-reduce` count and pan's "states, stored" for tags.pml
-- built with spin -o2 and -DNOREDUCE.  So
--   - the state variables are exactly blkmc's (bit, owner, rqs per tag; pc,
--     round, tag, obj per submitter; pos, count and three ghost flags), all
--     assigned in the startstate (no "undefined" values), and a variable a
--     configuration does not use (obj with POOL = 0) stays constant;
--   - one rule instance is one blkmc step; scratch values live in rule
--     locals, which are not part of the state;
--   - no scalarset: symmetry reduction would merge states blkmc keeps apart.
--
-- Parameters: rumur has no -D/--define, so the constants below are the build
-- parameters and bench/scale-baselines.sh rewrites the lines between the
-- PARAMS markers with sed (one "NAME: value;" per line; keep that shape).
-- Ranges as in blkmc: NTAGS 1..16, SUBMITTERS 1..8, ROUNDS 1..15, POOL 0..8,
-- VARIANT V4_11 | NULL_CHECK | REFCOUNT | TAG_MATCH; CHECK_* = 1 turns the
-- property's invariant on (like tags.pml's -DFN_SEES_OWNER ...).
--
-- Deadlock: generate with `rumur --deadlock-detection stuck` (the default,
-- "stuttering", would flag the finished state's idle rule below) for blkmc's
-- deadlock property, or `off` to check only the invariants (pan -E).
--
-- Build: rumur --deadlock-detection stuck --threads 2 tags.m -o tags.c
--        cc -std=c11 -O3 -mcx16 -o tags tags.c -lpthread && ./tags
-- (threads are fixed when the verifier is generated, default: all cores;
-- with more than one, x86-64 needs -mcx16 for a 16-byte compare-and-swap.)

const
  -- the kernel variants of bt_iter(), oldest first
  V4_11: 1;       -- fn(rqs[bit]) unchecked: NULL deref in the assign window
  NULL_CHECK: 2;  -- skip NULL, but a stale previous owner still reaches fn
  REFCOUNT: 3;    -- fn only if refcount_inc_not_zero(&rq->ref)
  TAG_MATCH: 4;   -- ... and rq->tag == bitnr

  -- PARAMS begin
  NTAGS: 2;
  SUBMITTERS: 2;
  ROUNDS: 1;
  POOL: 0;
  VARIANT: REFCOUNT;
  CHECK_FN_SEES_OWNER: 1;
  CHECK_COUNT_OWNER_ONLY: 1;
  -- PARAMS end

  -- submitter program counter (blkmc's tags::Pc)
  GET: 0;       -- take a free pool object (POOL >= 1 only)
  ALLOC: 1;     -- blk_mq_get_tag(): set a clear bit
  ASSIGN: 2;    -- tags->rqs[tag] = rq: the race window ends here
  START: 3;
  COMPLETE: 4;
  FREE: 5;      -- blk_mq_free_request(): clear the bit, rqs[] kept
  DONE: 6;

  -- request ids: 0 is NULL; POOL = 0 numbers sub*ROUNDS + round + 1, a pool
  -- numbers its objects 1..POOL (the sum just bounds both cases)
  MAXID: SUBMITTERS * ROUNDS + POOL;

type
  tag_t: 0..NTAGS - 1;
  sub_t: 0..SUBMITTERS - 1;
  id_t: 0..MAXID;

var
  bit: array [tag_t] of boolean;
  owner: array [tag_t] of id_t;     -- ghost: request holding the tag
  rqs: array [tag_t] of id_t;       -- tags->rqs[], never cleared
  pc: array [sub_t] of GET..DONE;
  round: array [sub_t] of 0..ROUNDS;
  tag: array [sub_t] of tag_t;      -- 0 while none is held, as in blkmc
  obj: array [sub_t] of 0..POOL;
  pos: 0..NTAGS;                    -- the walk's next bit
  count: 0..NTAGS;                  -- in-flight requests fn counted
  oops: boolean;                    -- NULL deref: the walk is dead
  stale_fn: boolean;                -- fn ran on a non-owner
  stale_count: boolean;             -- ... and counted it

-- the request sub works on now
function my_rq(s: sub_t): id_t;
begin
  if POOL = 0 then
    return s * ROUNDS + round[s] + 1;
  else
    return obj[s];
  endif;
end;

-- the submitter working on request id, or -1; with POOL = 0 an id belongs to
-- one round of one submitter, so a finished one no longer works on it
function holder(id: id_t): -1..SUBMITTERS - 1;
begin
  if id != 0 then
    for s: sub_t do
      if my_rq(s) = id & (POOL != 0 | pc[s] != DONE) then
        return s;
      endif;
    endfor;
  endif;
  return -1;
end;

-- rq->ref > 0: a fresh request is live from its assign, a pool object from
-- the moment it is taken, until the free
function alive(id: id_t): boolean;
var h: -1..SUBMITTERS - 1;
begin
  h := holder(id);
  if h = -1 then return false; endif;
  if POOL = 0 then
    return pc[h] >= START & pc[h] <= FREE;
  else
    return pc[h] >= ALLOC & pc[h] <= FREE;
  endif;
end;

-- rq->state == MQ_RQ_IN_FLIGHT
function in_flight(id: id_t): boolean;
var h: -1..SUBMITTERS - 1;
begin
  h := holder(id);
  return h != -1 & pc[h] = COMPLETE;
end;

-- rq->tag, -1 before blk_mq_get_tag and after the free
function rq_tag(id: id_t): -1..NTAGS - 1;
var h: -1..SUBMITTERS - 1;
begin
  h := holder(id);
  if h != -1 & pc[h] >= ASSIGN & pc[h] <= FREE then
    return tag[h];
  endif;
  return -1;
end;

function finished(): boolean;
begin
  return (pos = NTAGS | oops) & forall s: sub_t do pc[s] = DONE endforall;
end;

-- blk_mq_free_request(): shared tail of the FREE step
procedure put_tag(s: sub_t);
begin
  bit[tag[s]] := false;
  owner[tag[s]] := 0;
  tag[s] := 0;
  obj[s] := 0;
  round[s] := round[s] + 1;
  if round[s] = ROUNDS then
    pc[s] := DONE;
  elsif POOL = 0 then
    pc[s] := ALLOC;
  else
    pc[s] := GET;
  endif;
end;

startstate "init"
begin
  for t: tag_t do
    bit[t] := false; owner[t] := 0; rqs[t] := 0;
  endfor;
  for s: sub_t do
    pc[s] := (POOL = 0 ? ALLOC : GET);
    round[s] := 0; tag[s] := 0; obj[s] := 0;
  endfor;
  pos := 0; count := 0;
  oops := false; stale_fn := false; stale_count := false;
endstartstate;

ruleset s: sub_t do

  -- blk_mq_get_request(): any pool object nobody holds (k = 0 is no object)
  ruleset k: 0..POOL do
    rule "get"
      k != 0 & pc[s] = GET & forall o: sub_t do obj[o] != k endforall
    ==>
    begin
      obj[s] := k;
      pc[s] := ALLOC;
    endrule;
  endruleset;

  -- blk_mq_get_tag(): any clear bit (over-approximates the allocation hint)
  ruleset t: tag_t do
    rule "alloc"
      pc[s] = ALLOC & !bit[t]
    ==>
    begin
      bit[t] := true;
      owner[t] := my_rq(s);
      tag[s] := t;
      pc[s] := ASSIGN;
    endrule;
  endruleset;

  rule "assign" pc[s] = ASSIGN ==>
  begin
    rqs[tag[s]] := my_rq(s);
    pc[s] := START;
  endrule;

  rule "start" pc[s] = START ==>
  begin
    pc[s] := COMPLETE;
  endrule;

  rule "complete" pc[s] = COMPLETE ==>
  begin
    pc[s] := FREE;
  endrule;

  rule "free" pc[s] = FREE ==>
  begin
    put_tag(s);
  endrule;

endruleset;

-- bt_iter() on bit pos, then fn = blk_mq_check_inflight()
rule "visit"
  pos < NTAGS & !oops
==>
var rq: id_t; call: boolean; stale: boolean; counted: boolean;
begin
  rq := rqs[pos];
  call := bit[pos] & rq != 0;
  if VARIANT = V4_11 then
    if bit[pos] & rq = 0 then oops := true; endif;
  elsif VARIANT = REFCOUNT then
    call := call & alive(rq);
  elsif VARIANT = TAG_MATCH then
    call := call & alive(rq) & rq_tag(rq) = pos;
  endif;
  stale := rq != owner[pos];
  counted := call & in_flight(rq);
  if call & stale then stale_fn := true; endif;
  if counted then
    count := count + 1;
    if stale then stale_count := true; endif;
  endif;
  if !oops then pos := pos + 1; endif;  -- an oopsed walk stays put
endrule;

-- a finished state is not a deadlock (blkmc's `finished`): give it an idle
-- rule so that rumur's "stuck" detection flags only unfinished dead ends
rule "finished" finished() ==>
begin
endrule;

invariant "fn-sees-owner"
  CHECK_FN_SEES_OWNER = 0 | !stale_fn;

invariant "count-owner-only"
  CHECK_COUNT_OWNER_ONLY = 0 | !stale_count;
