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
;; entries, placeRun and removeRun take `table` as an argument rather than through `bits`: a call from JavaScript is then one
;; call, no global set first.
;;
;; A key's fingerprint fp = (h2 mod (2^f - 1)) + 1, its buckets i1 = h1 mod n and i2 = (g(fp) - i1) mod n with
;; g(fp) = fp * 0x1b873593 mod 2^32 (cuckoo-hash.ts): all unsigned 32-bit arithmetic here, exactly what the
;; JavaScript computes in binary64. A key is present when a slot of either bucket holds fp.
;;
;; A bucket of at most 57 bits (size * f: every 2-slot bucket, 4 slots up to 14 bits, 8 up to 7) is read as one
;; 64-bit word and its slots tested together, as fields of f bits (SWAR): with `ones` a 1 at the bottom of each
;; field, `low` the low f - 1 bits of each and `highs` the top bit of each, the top bit of a field of v is set in
;;   zeroFields(v) = ~(((v & low) + low) | v | low) & highs
;; exactly when the field is 0 ((v & low) + low carries into the top bit when a low bit is set, and never past the
;; field); the slots holding fp are the zero fields of v ^ (fp * ones). Other buckets are read a slot at a time.
;; Either way no branch depends on a slot's value. (Batch lookup at 10^6 URL keys, 4-slot buckets of 10 bits: 26 ->
;; 19 ns a key after hashing; one process, 2026-11-29.)
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
  ;; The first bit of bucket $bucket of $bucketBits bits (below 2^34: a table is at most 2 GiB).
  (func $inline.bitOf (param $bucket i32) (param $bucketBits i32) (result i64)
    (i64.mul (i64.extend_i32_u (local.get $bucket)) (i64.extend_i32_u (local.get $bucketBits))))
  ;; The byte holding the bucket's first bit.
  (func $inline.bucketAt (param $table i32) (param $bucket i32) (param $bucketBits i32) (result i32)
    (i32.add (local.get $table)
      (i32.wrap_i64 (i64.shr_u (call $inline.bitOf (local.get $bucket) (local.get $bucketBits)) (i64.const 3)))))
  ;; ---- Reading slots one at a time (any bucket).
  ;; The big-endian word at byte $at: the little-endian load, its bytes reversed (a swizzle, as set stores it).
  (func $inline.wordAt (param $at i32) (result i32)
    (i32x4.extract_lane 0
      (i8x16.swizzle (v128.load32_zero (local.get $at)) (v128.const i8x16 3 2 1 0 4 5 6 7 8 9 10 11 12 13 14 15))))
  ;; One pass over bucket $bucket's slots: bit j set when slot j is 0, bit 8 + j when it holds $fp. Each slot is the
  ;; f bits at its bit offset in the big-endian word at its first byte (f <= 24).
  (func $inline.slotsOf (param $table i32) (param $bucket i32) (param $size i32) (param $f i32) (param $mask i32)
    (param $fp i32) (result i32)
    (local $bit i64) (local $at i32) (local $shift i32) (local $j i32) (local $slot i32) (local $empties i32)
    (local $matches i32)
    (local.set $bit (call $inline.bitOf (local.get $bucket) (i32.mul (local.get $size) (local.get $f))))
    (local.set $at (i32.add (local.get $table) (i32.wrap_i64 (i64.shr_u (local.get $bit) (i64.const 3)))))
    (local.set $shift (i32.wrap_i64 (i64.and (local.get $bit) (i64.const 7))))
    (loop $slots
      (local.set $slot
        (i32.and
          (i32.shr_u (call $inline.wordAt (local.get $at))
            (i32.sub (i32.sub (i32.const 32) (local.get $shift)) (local.get $f)))
          (local.get $mask)))
      (local.set $empties (i32.or (local.get $empties) (i32.shl (i32.eqz (local.get $slot)) (local.get $j))))
      (local.set $matches
        (i32.or (local.get $matches) (i32.shl (i32.eq (local.get $slot) (local.get $fp)) (local.get $j))))
      (local.set $shift (i32.add (local.get $shift) (local.get $f)))
      (local.set $at (i32.add (local.get $at) (i32.shr_u (local.get $shift) (i32.const 3))))
      (local.set $shift (i32.and (local.get $shift) (i32.const 7)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $slots (i32.lt_u (local.get $j) (local.get $size))))
    (i32.or (local.get $empties) (i32.shl (local.get $matches) (i32.const 8))))
  ;; ---- Reading a bucket of at most 57 bits as one word (SWAR, above).
  ;; A 1 at the bottom of each of the $size fields of $f bits.
  (func $inline.ones (param $size i32) (param $f i32) (result i64)
    (local $ones i64) (local $j i32)
    (loop $fields
      (local.set $ones (i64.or (i64.shl (local.get $ones) (i64.extend_i32_u (local.get $f))) (i64.const 1)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $fields (i32.lt_u (local.get $j) (local.get $size))))
    (local.get $ones))
  ;; The bucket's $bucketBits bits, slot 0 the most significant: the 8 bytes from its first byte, big-endian (the
  ;; load's bytes reversed by one SIMD swizzle: ten shifts and masks before, 3 ns a batch add's key), less the bits
  ;; before the bucket and after it.
  (func $inline.bucketWord (param $table i32) (param $bucket i32) (param $bucketBits i32) (result i64)
    (local $bit i64) (local $x i64)
    (local.set $bit (call $inline.bitOf (local.get $bucket) (local.get $bucketBits)))
    (local.set $x
      (i64x2.extract_lane 0
        (i8x16.swizzle
          (v128.load64_zero (i32.add (local.get $table) (i32.wrap_i64 (i64.shr_u (local.get $bit) (i64.const 3)))))
          (v128.const i8x16 7 6 5 4 3 2 1 0 8 9 10 11 12 13 14 15))))
    (i64.shr_u (i64.shl (local.get $x) (i64.and (local.get $bit) (i64.const 7)))
      (i64.extend_i32_u (i32.sub (i32.const 64) (local.get $bucketBits)))))
  ;; The top bit of each zero field of $v set, every other bit clear.
  (func $inline.zeroFields (param $v i64) (param $ones i64) (param $f i32) (result i64)
    (local $low i64)
    (local.set $low
      (i64.mul (local.get $ones) (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $f) (i32.const 1))))
        (i64.const 1))))
    (i64.and
      (i64.xor
        (i64.or (i64.or (i64.add (i64.and (local.get $v) (local.get $low)) (local.get $low)) (local.get $v))
          (local.get $low))
        (i64.const -1))
      (i64.shl (local.get $ones) (i64.extend_i32_u (i32.sub (local.get $f) (i32.const 1))))))
  ;; The slot of the highest field whose top bit is set in $zeros (not 0): slot j's top bit is bit (size - j) * f - 1,
  ;; so j is the fields above that bit, the top bits of `ones << (f - 1)` from bit 64 - clz up (no division: a
  ;; division by f here cost a batch add 11% of its time in the kernel).
  (func $inline.firstField (param $zeros i64) (param $ones i64) (param $f i32) (result i32)
    (i32.wrap_i64
      (i64.popcnt
        (i64.and (i64.shl (local.get $ones) (i64.extend_i32_u (i32.sub (local.get $f) (i32.const 1))))
          (i64.shl (i64.const -1) (i64.sub (i64.const 64) (i64.clz (local.get $zeros))))))))
  ;; What slotsOf answers, for a bucket of at most 57 bits, of its empty slots and of those holding fp only the first
  ;; of each (all an add or a delete reads; $rep is fp * ones).
  (func $inline.slotsOfWord (param $table i32) (param $bucket i32) (param $size i32) (param $f i32) (param $rep i64)
    (param $ones i64) (result i32)
    (local $v i64) (local $zeros i64) (local $hits i64)
    (local.set $v
      (call $inline.bucketWord (local.get $table) (local.get $bucket) (i32.mul (local.get $size) (local.get $f))))
    (local.set $zeros (call $inline.zeroFields (local.get $v) (local.get $ones) (local.get $f)))
    (local.set $hits (call $inline.zeroFields (i64.xor (local.get $v) (local.get $rep)) (local.get $ones) (local.get $f)))
    (i32.or
      (if (result i32) (i64.eqz (local.get $zeros))
        (then (i32.const 0))
        (else (i32.shl (i32.const 1) (call $inline.firstField (local.get $zeros) (local.get $ones) (local.get $f)))))
      (if (result i32) (i64.eqz (local.get $hits))
        (then (i32.const 0))
        (else
          (i32.shl (i32.const 256) (call $inline.firstField (local.get $hits) (local.get $ones) (local.get $f)))))))
  ;; 1 when bucket $bucket holds fp ($rep is fp * ones), else 0, for a bucket of at most 57 bits.
  (func $inline.holdsWord (param $table i32) (param $bucket i32) (param $size i32) (param $f i32) (param $rep i64)
    (param $ones i64) (result i32)
    (i64.ne
      (call $inline.zeroFields
        (i64.xor
          (call $inline.bucketWord (local.get $table) (local.get $bucket) (i32.mul (local.get $size) (local.get $f)))
          (local.get $rep))
        (local.get $ones) (local.get $f))
      (i64.const 0)))
  ;; ---- Either way, as the bucket's size allows (a bucket of at most 57 bits as one word; $rep is fp * ones).
  ;; 1 when bucket $bucket holds fp, else 0.
  (func $inline.holds (param $table i32) (param $bucket i32) (param $size i32) (param $f i32) (param $mask i32)
    (param $fp i32) (param $rep i64) (param $ones i64) (result i32)
    (if (result i32) (i32.le_u (i32.mul (local.get $size) (local.get $f)) (i32.const 57))
      (then
        (call $inline.holdsWord (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
          (local.get $rep) (local.get $ones)))
      (else
        (i32.gt_u
          (call $inline.slotsOf (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
            (local.get $mask) (local.get $fp))
          (i32.const 255)))))
  ;; Bit j set when slot j is empty, bit 8 + j when it holds fp (of a bucket read as one word, only the first of each).
  (func $inline.slots (param $table i32) (param $bucket i32) (param $size i32) (param $f i32) (param $mask i32)
    (param $fp i32) (param $rep i64) (param $ones i64) (result i32)
    (if (result i32) (i32.le_u (i32.mul (local.get $size) (local.get $f)) (i32.const 57))
      (then
        (call $inline.slotsOfWord (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
          (local.get $rep) (local.get $ones)))
      (else
        (call $inline.slotsOf (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
          (local.get $mask) (local.get $fp)))))
  ;; The slot $slot's bits: where its big-endian word starts, and how far its bits end from that word's bottom.
  (func $inline.slotAt (param $table i32) (param $slot i64) (param $f i32) (result i32)
    (i32.add (local.get $table)
      (i32.wrap_i64 (i64.shr_u (i64.mul (local.get $slot) (i64.extend_i32_u (local.get $f))) (i64.const 3)))))
  (func $inline.slotShift (param $slot i64) (param $f i32) (result i32)
    (i32.sub (i32.const 32)
      (i32.add (i32.wrap_i64 (i64.and (i64.mul (local.get $slot) (i64.extend_i32_u (local.get $f))) (i64.const 7)))
        (local.get $f))))
  ;; The fingerprint in slot $slot (SlotTable.get).
  (func $inline.get (param $table i32) (param $slot i64) (param $f i32) (param $mask i32) (result i32)
    (i32.and
      (i32.shr_u (call $inline.wordAt (call $inline.slotAt (local.get $table) (local.get $slot) (local.get $f)))
        (call $inline.slotShift (local.get $slot) (local.get $f)))
      (local.get $mask)))
  ;; Writes $value into slot $slot (SlotTable.set): the slot's big-endian word read, its bits replaced, the word
  ;; stored back (every other bit as read).
  (func $inline.set (param $table i32) (param $slot i64) (param $f i32) (param $mask i32) (param $value i32)
    (local $at i32) (local $shift i32) (local $word i32)
    (local.set $at (call $inline.slotAt (local.get $table) (local.get $slot) (local.get $f)))
    (local.set $shift (call $inline.slotShift (local.get $slot) (local.get $f)))
    (local.set $word
      (i32.or
        (i32.and (call $inline.wordAt (local.get $at))
          (i32.xor (i32.shl (local.get $mask) (local.get $shift)) (i32.const -1)))
        (i32.shl (local.get $value) (local.get $shift))))
    ;; Stored big-endian: its bytes reversed, then the little-endian store.
    (i32.store (local.get $at)
      (i32x4.extract_lane 0
        (i8x16.swizzle (i32x4.splat (local.get $word)) (v128.const i8x16 3 2 1 0 4 5 6 7 8 9 10 11 12 13 14 15)))))
  ;; The first empty slot of bucket i1, else of i2 (given their slotsOf $s1, $s2): bucket * size + j; -1 when both
  ;; are full.
  (func $inline.emptySlot (param $i1 i32) (param $i2 i32) (param $s1 i32) (param $s2 i32) (param $size i32)
    (result i64)
    (if (i32.and (local.get $s1) (i32.const 255))
      (then
        (return
          (i64.add (i64.mul (i64.extend_i32_u (local.get $i1)) (i64.extend_i32_u (local.get $size)))
            (i64.extend_i32_u (i32.ctz (local.get $s1)))))))
    (if (i32.eqz (i32.and (local.get $s2) (i32.const 255))) (then (return (i64.const -1))))
    (i64.add (i64.mul (i64.extend_i32_u (local.get $i2)) (i64.extend_i32_u (local.get $size)))
      (i64.extend_i32_u (i32.ctz (local.get $s2)))))
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
        (local.set $slot
          (i64.add (i64.mul (i64.extend_i32_u (local.get $bucket)) (i64.extend_i32_u (local.get $size)))
            (i64.extend_i32_u (i32.and (i32.shr_u (local.get $r) (i32.const 16)) (i32.sub (local.get $size) (i32.const 1))))))
        (local.set $taken (call $inline.get (local.get $table) (local.get $slot) (local.get $f) (local.get $mask)))
        (call $inline.logSet (local.get $table) (local.get $slot) (local.get $f) (local.get $mask)
          (local.get $carried) (local.get $taken))
        (local.set $carried (local.get $taken))
        (local.set $bucket (call $inline.other (local.get $bucket) (local.get $carried) (local.get $buckets)))
        (local.set $empty
          (call $inline.emptySlot (local.get $bucket) (local.get $bucket)
            (call $inline.slots (local.get $table) (local.get $bucket) (local.get $size) (local.get $f)
              (local.get $mask) (local.get $carried)
              (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $carried))) (local.get $ones))
            (i32.const 0) (local.get $size)))
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
              (i32.load8_u
                (call $inline.bucketAt (local.get $table) (local.get $i2) (i32.mul (local.get $size) (local.get $f)))))))
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
    (local $mask i32) (local $ones i64) (local $rep i64)
    (local $fp i32) (local $i1 i32) (local $i2 i32) (local $s1 i32) (local $s2 i32) (local $slot i64)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (local.set $fp (call $inline.fingerprint (local.get $h2) (local.get $mask)))
    (local.set $rep (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))))
    (local.set $i1 (i32.rem_u (local.get $h1) (local.get $buckets)))
    (local.set $i2 (call $inline.other (local.get $i1) (local.get $fp) (local.get $buckets)))
    (local.set $s1
      (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f) (local.get $mask)
        (local.get $fp) (local.get $rep) (local.get $ones)))
    (local.set $s2
      (if (result i32) (i32.eq (local.get $i2) (local.get $i1))
        (then (local.get $s1))
        (else
          (call $inline.slots (local.get $table) (local.get $i2) (local.get $size) (local.get $f) (local.get $mask)
            (local.get $fp) (local.get $rep) (local.get $ones)))))
    (local.set $slot (call $inline.emptySlot (local.get $i1) (local.get $i2) (local.get $s1) (local.get $s2) (local.get $size)))
    (if (i64.ge_s (local.get $slot) (i64.const 0))
      (then (call $inline.set (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (local.get $fp))))
    (i32.or
      (i32.shl (i32.eqz (i32.and (i32.or (local.get $s1) (local.get $s2)) (i32.const 0xff00))) (i32.const 1))
      (i64.ge_s (local.get $slot) (i64.const 0))))
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
    (local $j i32) (local $w i32) (local $fp i32) (local $i1 i32) (local $i2 i32) (local $s1 i32) (local $s2 i32)
    (local $slot i64) (local $room i32)
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
        (local.set $s1
          (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f) (local.get $mask)
            (local.get $fp) (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp)))
            (local.get $ones)))
        (local.set $s2
          (if (result i32) (i32.eq (local.get $i2) (local.get $i1))
            (then (local.get $s1))
            (else
              (call $inline.slots (local.get $table) (local.get $i2) (local.get $size) (local.get $f)
                (local.get $mask) (local.get $fp)
                (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))) (local.get $ones)))))
        (local.set $slot
          (call $inline.emptySlot (local.get $i1) (local.get $i2) (local.get $s1) (local.get $s2) (local.get $size)))
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
        (i32.store8 offset=16384 (local.get $j)
          (i32.eqz (i32.and (i32.or (local.get $s1) (local.get $s2)) (i32.const 0xff00))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $j))
  ;; removeRun(n, buckets, size, f, table): a delete of each of keys 0..n-1 of the hashes, in order (as
  ;; CuckooFilter.deleteHash): the first slot holding the key's fingerprint in its first bucket, else in its other one,
  ;; cleared; answers[j] = 1 when key j's was, else 0 (nothing written). Returns how many were. A delete cannot fail,
  ;; so nothing is logged.
  (func (export "removeRun") (param $n i32) (param $buckets i32) (param $size i32) (param $f i32) (param $table i32)
    (result i32)
    (local $mask i32) (local $ones i64) (local $rep i64)
    (local $j i32) (local $w i32) (local $fp i32) (local $i1 i32) (local $hit i32) (local $slot i64) (local $total i32)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    (local.set $ones (call $inline.ones (local.get $size) (local.get $f)))
    (call $inline.prepare (local.get $n) (local.get $buckets) (local.get $size) (local.get $f) (local.get $mask)
      (local.get $table))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (local.set $fp (i32.load offset=20480 (local.get $w)))
        (local.set $rep (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))))
        (local.set $i1 (i32.load offset=20484 (local.get $w)))
        (local.set $hit
          (i32.shr_u
            (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f) (local.get $mask)
              (local.get $fp) (local.get $rep) (local.get $ones))
            (i32.const 8)))
        (if (i32.eqz (local.get $hit))
          (then
            (local.set $i1 (i32.load offset=20488 (local.get $w)))
            (local.set $hit
              (i32.shr_u
                (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f)
                  (local.get $mask) (local.get $fp) (local.get $rep) (local.get $ones))
                (i32.const 8)))))
        (if (local.get $hit)
          (then
            (local.set $slot
              (i64.add (i64.mul (i64.extend_i32_u (local.get $i1)) (i64.extend_i32_u (local.get $size)))
                (i64.extend_i32_u (i32.ctz (local.get $hit)))))
            (call $inline.set (local.get $table) (local.get $slot) (local.get $f) (local.get $mask) (i32.const 0))))
        (i32.store8 offset=16384 (local.get $j) (i32.ne (local.get $hit) (i32.const 0)))
        (local.set $total (i32.add (local.get $total) (i32.ne (local.get $hit) (i32.const 0))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
)
