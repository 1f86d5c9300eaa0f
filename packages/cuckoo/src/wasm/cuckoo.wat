;; The cuckoo filter's batch lookup for keys already hashed (docs/FORMAT.md section 3.9), as CuckooFilter's
;; JavaScript path answers it, bit for bit (test/cuckoo-kernel.spec.ts holds the two together), over a table that
;; lives in this module's memory. The memory is imported (@bloomkit/core's src/wasm/kernel-memory.ts lays it out;
;; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key;
;;   [table, ...)      the table from the offset `table` (at least 65536): slot i holds bits [i*f, (i + 1)*f), bit b
;;                     being bit 7 - (b & 7) of byte table + (b >>> 3), most significant first, with three readable
;;                     bytes after the last slot's byte (so every slot lies in the 32-bit big-endian word at its
;;                     first byte).
;;
;; A key's fingerprint fp = (h2 mod (2^f - 1)) + 1, its buckets i1 = h1 mod n and i2 = (g(fp) - i1) mod n with
;; g(fp) = fp * 0x1b873593 mod 2^32 (cuckoo-hash.ts): all unsigned 32-bit arithmetic here, exactly what the
;; JavaScript computes in binary64. A key is present when a slot of either bucket holds fp; both buckets are read
;; whole, with no branch on their slots (a slot equal to fp makes (slot ^ fp) - 1 negative, and the answer is the
;; sign of the OR of those differences), so the answers cost no mispredicted branch and the loads of a batch overlap.
;;
;; probe(n, buckets, size, f): answers[j] = 1 when key j may be in the filter, else 0, j < n; returns how many 1s.
;; `size` is the slots a bucket (2, 4 or 8), `f` the fingerprint bits (4 to 24), `buckets` below 2^31.
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
  ;; The OR over bucket $bucket's slots of (slot ^ fp) - 1: negative when one of them holds $fp. The build inlines it
  ;; into probe (Node 20 does not inline WebAssembly calls).
  (func $inline.anyEqual (param $bucket i32) (param $size i32) (param $f i32) (param $mask i32) (param $fp i32)
    (result i32)
    (local $bit i64) (local $at i32) (local $shift i32) (local $left i32) (local $word i32) (local $acc i32)
    ;; The bucket's first bit, below 2^34 (a table is at most 2 GiB): its byte below 2^31.
    (local.set $bit
      (i64.mul (i64.extend_i32_u (local.get $bucket)) (i64.extend_i32_u (i32.mul (local.get $size) (local.get $f)))))
    (local.set $at
      (i32.add (global.get $table) (i32.wrap_i64 (i64.shr_u (local.get $bit) (i64.const 3)))))
    (local.set $shift (i32.wrap_i64 (i64.and (local.get $bit) (i64.const 7))))
    (local.set $left (local.get $size))
    (loop $slots
      ;; The big-endian word at $at: the little-endian load, its bytes reversed.
      (local.set $word (i32.load (local.get $at)))
      (local.set $word
        (i32.or
          (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
          (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
      (local.set $acc
        (i32.or (local.get $acc)
          (i32.sub
            (i32.xor
              (i32.and
                (i32.shr_u (local.get $word) (i32.sub (i32.sub (i32.const 32) (local.get $shift)) (local.get $f)))
                (local.get $mask))
              (local.get $fp))
            (i32.const 1))))
      (local.set $shift (i32.add (local.get $shift) (local.get $f)))
      (local.set $at (i32.add (local.get $at) (i32.shr_u (local.get $shift) (i32.const 3))))
      (local.set $shift (i32.and (local.get $shift) (i32.const 7)))
      (local.set $left (i32.sub (local.get $left) (i32.const 1)))
      (br_if $slots (local.get $left)))
    (local.get $acc))
  ;; A bucket's first byte in the memory.
  (func $inline.bucketAt (param $bucket i32) (param $bucketBits i32) (result i32)
    (i32.add (global.get $table)
      (i32.wrap_i64
        (i64.shr_u (i64.mul (i64.extend_i32_u (local.get $bucket)) (i64.extend_i32_u (local.get $bucketBits)))
          (i64.const 3)))))
  ;; What the touch pass read (kept, so that its loads are not dropped).
  (global $touched (mut i32) (i32.const 0))
  (func (export "probe") (param $n i32) (param $buckets i32) (param $size i32) (param $f i32) (result i32)
    (local $j i32) (local $h i32) (local $mask i32) (local $fp i32) (local $i1 i32) (local $i2 i32) (local $yes i32)
    (local $total i32) (local $read i32) (local $w i32)
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $f)) (i32.const 1)))
    ;; First every key's fingerprint and buckets, kept at 20480 + 12j, and a load of each bucket's first byte: loads
    ;; with nothing waiting on them, which the processor keeps in flight together, so the tests that follow find
    ;; their lines in cache.
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $h (i32.shl (local.get $j) (i32.const 4)))
        (local.set $fp (i32.add (i32.rem_u (i32.load offset=4 (local.get $h)) (local.get $mask)) (i32.const 1)))
        (local.set $i1 (i32.rem_u (i32.load (local.get $h)) (local.get $buckets)))
        (local.set $i2
          (i32.sub
            (i32.rem_u (i32.mul (local.get $fp) (i32.const 0x1b873593)) (local.get $buckets))
            (local.get $i1)))
        ;; Plus n when negative, with no branch: i2 >> 31 is all ones then.
        (local.set $i2
          (i32.add (local.get $i2) (i32.and (local.get $buckets) (i32.shr_s (local.get $i2) (i32.const 31)))))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (i32.store offset=20480 (local.get $w) (local.get $fp))
        (i32.store offset=20484 (local.get $w) (local.get $i1))
        (i32.store offset=20488 (local.get $w) (local.get $i2))
        (local.set $read
          (i32.or (local.get $read)
            (i32.or
              (i32.load8_u (call $inline.bucketAt (local.get $i1) (i32.mul (local.get $size) (local.get $f))))
              (i32.load8_u (call $inline.bucketAt (local.get $i2) (i32.mul (local.get $size) (local.get $f)))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (global.set $touched (local.get $read))
    (local.set $j (i32.const 0))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $w (i32.mul (local.get $j) (i32.const 12)))
        (local.set $fp (i32.load offset=20480 (local.get $w)))
        (local.set $yes
          (i32.shr_u
            (i32.or
              (call $inline.anyEqual (i32.load offset=20484 (local.get $w)) (local.get $size) (local.get $f)
                (local.get $mask) (local.get $fp))
              (call $inline.anyEqual (i32.load offset=20488 (local.get $w)) (local.get $size) (local.get $f)
                (local.get $mask) (local.get $fp)))
            (i32.const 31)))
        (i32.store8 offset=16384 (local.get $j) (local.get $yes))
        (local.set $total (i32.add (local.get $total) (local.get $yes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
)
