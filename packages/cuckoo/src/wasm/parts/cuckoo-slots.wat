;; The cuckoo table's bits, as cuckoo.wat reads and writes them (docs/FORMAT.md section 3.9; slot-table.ts in
;; JavaScript): a bucket's slots read one at a time or, when the bucket fits a 64-bit word, all at once; a slot's
;; fingerprint read and written; both buckets of a key read together and their first empty slot or first copy of fp
;; found. Slot i holds bits [i*f, (i + 1)*f) of the table from byte `table`, most significant first. Included into
;; cuckoo.wat's module by scripts/build-wasm.mjs (its `;; include` line); every function here is inlined.
;;
;; A bucket of at most 57 bits (size * f: every 2-slot bucket, 4 slots up to 14 bits, 8 up to 7) is read as one
;; 64-bit word and its slots tested together, as fields of f bits (SWAR): with `ones` a 1 at the bottom of each
;; field, `low` the low f - 1 bits of each and `highs` the top bit of each, the top bit of a field of v is set in
;;   zeroFields(v) = ~(((v & low) + low) | v | low) & highs
;; exactly when the field is 0 ((v & low) + low carries into the top bit when a low bit is set, and never past the
;; field); the slots holding fp are the zero fields of v ^ (fp * ones). Other buckets are read a slot at a time.
;; Either way no branch depends on a slot's value. (Batch lookup at 10^6 URL keys, 4-slot buckets of 10 bits: 26 ->
;; 19 ns a key after hashing; one process, 2026-11-29.)
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
      (i64.mul (local.get $ones)
        (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $f) (i32.const 1)))) (i64.const 1))))
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
    (local.set $hits
      (call $inline.zeroFields (i64.xor (local.get $v) (local.get $rep)) (local.get $ones) (local.get $f)))
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
  ;; Both buckets' slotsOf in one word: i1's in the low 16 bits, i2's in the high 16 (i1's again when i2 is i1).
  (func $inline.pair (param $table i32) (param $i1 i32) (param $i2 i32) (param $size i32) (param $f i32)
    (param $mask i32) (param $fp i32) (param $ones i64) (result i32)
    (local $rep i64) (local $s1 i32)
    (local.set $rep (i64.mul (local.get $ones) (i64.extend_i32_u (local.get $fp))))
    (local.set $s1 (call $inline.slots (local.get $table) (local.get $i1) (local.get $size) (local.get $f)
      (local.get $mask) (local.get $fp) (local.get $rep) (local.get $ones)))
    (i32.or (local.get $s1)
      (i32.shl
        (if (result i32) (i32.eq (local.get $i2) (local.get $i1))
          (then (local.get $s1))
          (else
            (call $inline.slots (local.get $table) (local.get $i2) (local.get $size) (local.get $f)
              (local.get $mask) (local.get $fp) (local.get $rep) (local.get $ones))))
        (i32.const 16))))
  ;; Slot j of bucket $bucket: bucket * size + j.
  (func $inline.slotIn (param $bucket i32) (param $size i32) (param $j i32) (result i64)
    (i64.add (i64.mul (i64.extend_i32_u (local.get $bucket)) (i64.extend_i32_u (local.get $size)))
      (i64.extend_i32_u (local.get $j))))
  ;; Of a pair, the first empty slot ($shift 0) or the first holding fp ($shift 8) of bucket i1, else of i2; -1 when
  ;; neither has one.
  (func $inline.firstOf (param $i1 i32) (param $i2 i32) (param $pair i32) (param $size i32) (param $shift i32)
    (result i64)
    (local $bits i32)
    (local.set $bits (i32.and (i32.shr_u (local.get $pair) (local.get $shift)) (i32.const 255)))
    (if (local.get $bits)
      (then (return (call $inline.slotIn (local.get $i1) (local.get $size) (i32.ctz (local.get $bits))))))
    (local.set $bits
      (i32.and (i32.shr_u (local.get $pair) (i32.add (local.get $shift) (i32.const 16))) (i32.const 255)))
    (if (result i64) (local.get $bits)
      (then (call $inline.slotIn (local.get $i2) (local.get $size) (i32.ctz (local.get $bits))))
      (else (i64.const -1))))
  ;; 1 when neither bucket of a pair held fp (an add's "absent before").
  (func $inline.absent (param $pair i32) (result i32)
    (i32.eqz (i32.and (local.get $pair) (i32.const 0xff00ff00))))
