;; The cuckoo filter's lookups (a batch: probe; one key: holds), adds (one key's first step: place; a batch's both
;; steps: placeRun) and a batch's deletes (removeRun), for keys already hashed (docs/FORMAT.md section 3.9), as
;; CuckooFilter's JavaScript path answers and writes them, bit for bit (test/cuckoo-kernel.spec.ts holds the two
;; together), over a table in this module's memory. It reverses bytes with SIMD swizzles: an engine without
;; WebAssembly SIMD does not compile it, and the filter runs on its JavaScript path there. The memory is imported
;; (@bloomkit/core's src/wasm/kernel-memory.ts lays it out; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key; [17408, 17412) the count of placeRun's log;
;;   [20480, 32768)    a batch's fingerprints and buckets: key j's fp, i1, i2 at 20480 + 12j;
;;   [32768, 65536)    placeRun's log: 2,048 (slot, old value) pairs of f64;
;;   [table, ...)      the table from the offset `table` (at least 65536): slot i holds bits [i*f, (i + 1)*f), bit b
;;                     being bit 7 - (b & 7) of byte table + (b >>> 3), most significant first, with eight readable
;;                     bytes after the last slot's byte (slot-table.ts keeps them after a kernel table's payload).
;; `size` is the slots a bucket (2, 4 or 8), `f` the fingerprint bits (4 to 24), `buckets` below 2^31. The one-key
;; entries, placeRun and removeRun take `table` as an argument rather than through `bits`: a call from JavaScript
;; is then one call, no global set first.
;;
;; A key's fingerprint fp = (h2 mod (2^f - 1)) + 1, its buckets i1 = h1 mod n and i2 = (g(fp) - i1) mod n with
;; g(fp) = fp * 0x1b873593 mod 2^32 (cuckoo-hash.ts): all unsigned 32-bit arithmetic here, exactly what the
;; JavaScript computes in binary64. A key is present when a slot of either bucket holds fp.
;;
;; The table's bits are read and written by the functions of parts/cuckoo-slots.wat (a bucket's slots one at a
;; time or as one 64-bit word, a slot's fingerprint, both buckets of a key together), included below.
(module
  (import "filter" "memory" (memory 2))
  ;; The memory map above, exported for the loader (core's kernel-memory.ts), which refuses a module whose map is not
  ;; its own: where the hashes and the answers start, how many keys they hold, and where filters' tables may start.
  (global (export "hashesAt") i32 (i32.const 0))
  (global (export "answersAt") i32 (i32.const 16384))
  (global (export "keysMax") i32 (i32.const 1024))
  (global (export "scratchBytes") i32 (i32.const 65536))
  ;; Where the table of the filter at hand starts in the memory (core's kernel-arena.ts places it, 64-byte aligned,
  ;; at or past 65536): filters sharing a memory share an instance, and the caller sets this before each call. The
  ;; loader names it `bits`, as every kernel's.
  (global $table (export "bits") (mut i32) (i32.const 65536))
  ;; What the touch passes read (kept, so that their loads are not dropped).
  (global $touched (mut i32) (i32.const 0))
  ;; ---- A key's fingerprint and buckets.
  ;; (h2 mod (2^f - 1)) + 1, $mask being 2^f - 1.
  (func $inline.fingerprint (param $h2 i32) (param $mask i32) (result i32)
    (i32.add (i32.rem_u (local.get $h2) (local.get $mask)) (i32.const 1)))
  ;; The other bucket of $fp in bucket $i1: (g(fp) - i1) mod n, plus n when negative with no branch (>> 31 is all
  ;; ones then).
  (func $inline.other (param $i1 i32) (param $fp i32) (param $buckets i32) (result i32)
    (local $i2 i32)
    (local.set $i2
      (i32.sub (i32.rem_u (i32.mul (local.get $fp) (i32.const 0x1b873593)) (local.get $buckets)) (local.get $i1)))
    (i32.add (local.get $i2) (i32.and (local.get $buckets) (i32.shr_s (local.get $i2) (i32.const 31)))))
  ;; ---- Reading and writing the table's bits.
  ;; include parts/cuckoo-slots.wat
  ;; ---- The undo log of placeRun: (slot, the value it held before) pairs of f64 at 32768 + 16e, e below
  ;; 2048, their count the i32 at 17408. The caller copies them into its own log after each call.
  (func $inline.logged (result i32) (i32.load (i32.const 17408)))
  ;; Writes $value into slot $slot, logged.
  (func $inline.logSet (param $table i32) (param $slot i64) (param $f i32) (param $mask i32) (param $value i32)
    (param $old i32)
    (local $e i32)
    (local.set $e (call $inline.logged))
    (f64.store offset=32768 (i32.shl (local.get $e) (i32.const 4)) (f64.convert_i64_s (local.get $slot)))
    (f64.store offset=32776 (i32.shl (local.get $e) (i32.const 4)) (f64.convert_i32_u (local.get $old)))
    (i32.store (i32.const 17408) (i32.add (local.get $e) (i32.const 1)))
    (call $inline.set (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (local.get $value)))
  ;; Takes back the logged writes from event $start on, last first.
  (func $inline.undoTo (param $table i32) (param $start i32) (param $f i32) (param $mask i32)
    (local $e i32)
    (local.set $e (call $inline.logged))
    (block $done
      (loop $events
        (br_if $done (i32.le_s (local.get $e) (local.get $start)))
        (local.set $e (i32.sub (local.get $e) (i32.const 1)))
        (call $inline.set (local.get $table)
          (i64.trunc_f64_s (f64.load offset=32768 (i32.shl (local.get $e) (i32.const 4))))
          (local.get $f) (local.get $mask)
          (i32.trunc_f64_u (f64.load offset=32776 (i32.shl (local.get $e) (i32.const 4)))))
        (br $events)))
    (i32.store (i32.const 17408) (local.get $start)))
  ;; Step 2 of an add, both buckets full (cuckoo-walk.ts's kick, step for step): from bucket i1 (r even) or i2 (r
  ;; odd), up to $maxKicks times, r <- 69069 r + 1 mod 2^32, the fingerprint carried swaps with slot
  ;; floor(r / 2^16) mod size of the bucket, the one taken out goes to its other bucket, whose first empty slot takes
  ;; it, ending the walk. Every write logged; 1 when placed, else 0 with the walk's writes taken back. A function of
  ;; its own, not inlined: most keys never walk.
  (func $walk (param $table i32) (param $fp i32) (param $i1 i32) (param $i2 i32) (param $r i32)
    (param $buckets i32) (param $size i32) (param $f i32) (param $mask i32) (param $maxKicks i32)
    (param $ones i64) (result i32)
    (local $start i32) (local $carried i32) (local $bucket i32) (local $kick i32) (local $slot i64) (local $taken i32)
    (local $empty i64)
    (local.set $start (call $inline.logged))
    (local.set $carried (local.get $fp))
    (local.set $bucket (select (local.get $i2) (local.get $i1) (i32.and (local.get $r) (i32.const 1))))
    (block $failed
      (loop $kicks
        (br_if $failed (i32.ge_u (local.get $kick) (local.get $maxKicks)))
        (local.set $r (i32.add (i32.mul (local.get $r) (i32.const 69069)) (i32.const 1)))
        (local.set $slot (call $inline.slotIn (local.get $bucket) (local.get $size)
          (i32.and (i32.shr_u (local.get $r) (i32.const 16)) (i32.sub (local.get $size) (i32.const 1)))))
        (local.set $taken (call $inline.get (local.get $table) (local.get $slot) (local.get $f) (local.get $mask)))
        (call $inline.logSet (local.get $table) (local.get $slot) (local.get $f) (local.get $mask)
          (local.get $carried) (local.get $taken))
        (local.set $carried (local.get $taken))
        (local.set $bucket (call $inline.other (local.get $bucket) (local.get $carried) (local.get $buckets)))
        (local.set $empty
          (call $inline.firstOf (local.get $bucket) (local.get $bucket)
            (call $inline.slots (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
              (local.get $mask) (local.get $carried)
              (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $carried))) (local.get $ones))
            (local.get $size) (i32.const 0)))
        (if (i64.ge_s (local.get $empty) (i64.const 0))
          (then
            (call $inline.logSet (local.get $table) (local.get $empty) (local.get $f) (local.get $mask)
              (local.get $carried) (i32.const 0))
            (return (i32.const 1))))
        (local.set $kick (i32.add (local.get $kick) (i32.const 1)))
        (br $kicks)))
    (call $inline.undoTo (local.get $table) (local.get $start) (local.get $f) (local.get $mask))
    (i32.const 0))
  ;; The batches' first passes over keys 0..n-1 of the hashes: every key's fingerprint and buckets, kept at
  ;; 20480 + 12j, and a load of each bucket's first byte: loads with nothing waiting on them, which the processor
  ;; keeps in flight together, so the tests that follow find their lines in cache.
  (func $inline.prepare (param $n i32) (param $buckets i32) (param $size i32) (param $f i32) (param $mask i32)
    (param $table i32)
    (local $j i32) (local $h i32) (local $fp i32) (local $i1 i32) (local $i2 i32) (local $w i32) (local $read i32)
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $h (i32.shl (local.get $j) (i32.const 4)))
        (local.set $fp (call $inline.fingerprint (i32.load offset=4 (local.get $h)) (local.get $mask)))
        (local.set $i1 (i32.rem_u (i32.load (local.get $h)) (local.get $buckets)))
        (local.set $i2 (call $inline.other (local.get $i1) (local.get $fp) (local.get $buckets)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (i32.store offset=20480 (local.get $w) (local.get $fp))
        (i32.store offset=20484 (local.get $w) (local.get $i1))
        (i32.store offset=20488 (local.get $w) (local.get $i2))
        (local.set $read
          (i32.or (local.get $read)
            (i32.or
              (i32.load8_u
                (call $inline.bucketAt (local.get $table) (local.get $i1) (i32.mul (local.get $size) (local.get $f))))
              (i32.load8_u (call $inline.bucketAt (local.get $table) (local.get $i2)
                (i32.mul (local.get $size) (local.get $f)))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (global.set $touched (local.get $read)))
  ;; ---- The entries. Each works out the table's shape first: 2^f - 1, whether a bucket is one word, its fields.
  (func (export "probe") (param $n i32) (param $buckets i32) (param $size i32) (param $f i32) (result i32)
    (local $mask i32) (local $ones i64)
    (local $j i32) (local $w i32) (local $fp i32) (local $yes i32) (local $total i32)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (call $inline.prepare (local.get $n) (local.get $buckets) (local.get $size) (local.get $f) (local.get $mask)
      (global.get $table))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (local.set $fp (i32.load offset=20480 (local.get $w)))
        (local.set $yes
          (i32.or
            (call $inline.holds (global.get $table) (i32.load offset=20484 (local.get $w)) (local.get $size)
              (local.get $f) (local.get $mask) (local.get $fp)
              (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))) (local.get $ones))
            (call $inline.holds (global.get $table) (i32.load offset=20488 (local.get $w)) (local.get $size)
              (local.get $f) (local.get $mask) (local.get $fp)
              (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))) (local.get $ones))))
        (i32.store8 offset=16384 (local.get $j) (local.get $yes))
        (local.set $total (i32.add (local.get $total) (local.get $yes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
  ;; 1 when the one key hashed to h1, h2 may be in the filter whose table starts at `table`, else 0.
  (func (export "holds") (param $h1 i32) (param $h2 i32) (param $buckets i32) (param $size i32) (param $f i32)
    (param $table i32) (result i32)
    (local $mask i32) (local $ones i64) (local $rep i64)
    (local $fp i32) (local $i1 i32)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (local.set $fp (call $inline.fingerprint (local.get $h2) (local.get $mask)))
    (local.set $rep (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))))
    (local.set $i1 (i32.rem_u (local.get $h1) (local.get $buckets)))
    (i32.or
      (call $inline.holds (local.get $table) (local.get $i1) (local.get $size) (local.get $f) (local.get $mask)
        (local.get $fp) (local.get $rep) (local.get $ones))
      (call $inline.holds (local.get $table) (call $inline.other (local.get $i1) (local.get $fp) (local.get $buckets))
        (local.get $size) (local.get $f) (local.get $mask) (local.get $fp) (local.get $rep)
        (local.get $ones))))
  ;; Step 1 of an add (docs/FORMAT.md section 3.9, cuckoo-walk.ts) for the one key hashed to h1, h2: its fingerprint
  ;; into the first empty slot of its first bucket, else of its other one. Returns bit 0 set when it placed it (else
  ;; nothing was written: both buckets are full, and the caller walks), bit 1 set when neither bucket held the
  ;; fingerprint before (the add's "absent before").
  (func (export "place") (param $h1 i32) (param $h2 i32) (param $buckets i32) (param $size i32) (param $f i32)
    (param $table i32) (result i32)
    (local $mask i32) (local $ones i64)
    (local $fp i32) (local $i1 i32) (local $i2 i32) (local $pair i32) (local $slot i64)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (local.set $fp (call $inline.fingerprint (local.get $h2) (local.get $mask)))
    (local.set $i1 (i32.rem_u (local.get $h1) (local.get $buckets)))
    (local.set $i2 (call $inline.other (local.get $i1) (local.get $fp) (local.get $buckets)))
    (local.set $pair (call $inline.pair (local.get $table) (local.get $i1) (local.get $i2) (local.get $size)
      (local.get $f) (local.get $mask) (local.get $fp) (local.get $ones)))
    (local.set $slot
      (call $inline.firstOf (local.get $i1) (local.get $i2) (local.get $pair) (local.get $size) (i32.const 0)))
    (if (i64.ge_s (local.get $slot) (i64.const 0))
      (then (call $inline.set (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (local.get $fp))))
    (i32.or (i32.shl (call $inline.absent (local.get $pair)) (i32.const 1)) (i64.ge_s (local.get $slot) (i64.const 0))))
  ;; placeRun(from, n, buckets, size, f, maxKicks, table): an add's steps 1 and 2 for keys from..n-1 of the hashes, in
  ;; order, on the table at `table` (as place and cuckoo-walk.ts: the first empty slot of the key's buckets, else the
  ;; walk), every write logged (the log above, whose count the caller sets to 0 before the call); answers[j] = 1
  ;; when key j was absent before. Returns the key it stopped at, or n: it stops, with nothing written for that key,
  ;; when the key's walk fails (its writes taken back) or when the log might not hold it (fewer than maxKicks + 1
  ;; events left; maxKicks above 2047, every walk): the caller takes that key itself. A call from key 0 first prepares
  ;; every key (its fingerprint and buckets, and a touch of the buckets, as probe does); a call from a later key
  ;; continues that run over the same hashes and does not prepare them again.
  (func (export "placeRun") (param $from i32) (param $n i32) (param $buckets i32) (param $size i32) (param $f i32)
    (param $maxKicks i32) (param $table i32) (result i32)
    (local $mask i32) (local $ones i64)
    (local $j i32) (local $w i32) (local $fp i32) (local $i1 i32) (local $i2 i32) (local $pair i32) (local $slot i64)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (if (i32.eqz (local.get $from))
      (then
        (call $inline.prepare (local.get $n) (local.get $buckets) (local.get $size) (local.get $f) (local.get $mask)
          (local.get $table))))
    (local.set $j (local.get $from))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        ;; Room in the log for this key's every write: a walk's maxKicks + 1 (and at least the one of step 1).
        (br_if $done (i32.gt_u (i32.add (call $inline.logged) (local.get $maxKicks)) (i32.const 2047)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (local.set $fp (i32.load offset=20480 (local.get $w)))
        (local.set $i1 (i32.load offset=20484 (local.get $w)))
        (local.set $i2 (i32.load offset=20488 (local.get $w)))
        (local.set $pair (call $inline.pair (local.get $table) (local.get $i1) (local.get $i2) (local.get $size)
          (local.get $f) (local.get $mask) (local.get $fp) (local.get $ones)))
        (local.set $slot
          (call $inline.firstOf (local.get $i1) (local.get $i2) (local.get $pair) (local.get $size) (i32.const 0)))
        (if (i64.ge_s (local.get $slot) (i64.const 0))
          (then
            (call $inline.logSet (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (local.get $fp)
              (i32.const 0)))
          (else
            (br_if $done
              (i32.eqz
                (call $walk (local.get $table) (local.get $fp) (local.get $i1) (local.get $i2)
                  (i32.load offset=8 (i32.shl (local.get $j) (i32.const 4)))
                  (local.get $buckets) (local.get $size) (local.get $f) (local.get $mask) (local.get $maxKicks)
                  (local.get $ones))))))
        (i32.store8 offset=16384 (local.get $j) (call $inline.absent (local.get $pair)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $j))
  ;; removeRun(n, buckets, size, f, table): a delete of each of keys 0..n-1 of the hashes, in order (as
  ;; CuckooFilter.deleteHash): the first slot holding the key's fingerprint in its first bucket, else in its other one,
  ;; cleared; answers[j] = 1 when key j's was, else 0 (nothing written). Returns how many were. A delete cannot fail,
  ;; so nothing is logged.
  (func (export "removeRun") (param $n i32) (param $buckets i32) (param $size i32) (param $f i32) (param $table i32)
    (result i32)
    (local $mask i32) (local $ones i64)
    (local $j i32) (local $w i32) (local $fp i32) (local $rep i64) (local $i1 i32) (local $i2 i32) (local $pair i32)
    (local $slot i64) (local $hit i32) (local $total i32)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (call $inline.prepare (local.get $n) (local.get $buckets) (local.get $size) (local.get $f) (local.get $mask)
      (local.get $table))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (local.set $i1 (i32.load offset=20484 (local.get $w)))
        (local.set $i2 (i32.load offset=20488 (local.get $w)))
        (local.set $fp (i32.load offset=20480 (local.get $w)))
        (local.set $rep (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))))
        ;; A pair whose second bucket is read only when the first holds no copy (most deletes find it there).
        (local.set $pair (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f)
          (local.get $mask) (local.get $fp) (local.get $rep) (local.get $ones)))
        (if (i32.eqz (i32.and (local.get $pair) (i32.const 0xff00)))
          (then
            (local.set $pair (i32.or (local.get $pair)
              (i32.shl (call $inline.slots (local.get $table) (local.get $i2) (local.get $size) (local.get $f)
                (local.get $mask) (local.get $fp) (local.get $rep) (local.get $ones)) (i32.const 16))))))
        (local.set $slot
          (call $inline.firstOf (local.get $i1) (local.get $i2) (local.get $pair) (local.get $size) (i32.const 8)))
        (local.set $hit (i64.ge_s (local.get $slot) (i64.const 0)))
        (if (local.get $hit)
          (then (call $inline.set (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (i32.const 0))))
        (i32.store8 offset=16384 (local.get $j) (local.get $hit))
        (local.set $total (i32.add (local.get $total) (local.get $hit)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
)
