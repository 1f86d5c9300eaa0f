;; The binary fuse filter's lookups (a batch, and one key) for keys already hashed (docs/FORMAT.md section 3.8), as
;; BinaryFuseFilter's JavaScript path (fuse-hash.ts) answers them, bit for bit (test/fuse-kernel.spec.ts holds the
;; two together), over fingerprints that live in this module's memory. The memory is imported (@bloomkit/core's
;; src/wasm/kernel-memory.ts lays it out; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024 (its 64-bit key is h2:h1, the little-endian
;;                     i64 at 16*j);
;;   [16384, 17408)    the answers: one byte per key;
;;   [table, ...)      the fingerprints from the offset `table` (at least 65536): slot i's at table + i (8 bits) or
;;                     table + 2i (16 bits, little-endian).
;;
;; With the filter's 64-bit seed S, hash = fmix64(key + S) (MurmurHash3's finalizer, mod 2^64), its slots
;;   h0 = floor(hash * segmentCountLength / 2^64)
;;   h1 = (h0 + segmentLength) XOR ((hash >> 18) AND segmentLengthMask)
;;   h2 = (h0 + 2 * segmentLength) XOR (hash AND segmentLengthMask)
;; and its fingerprint the low 8 (16) bits of hash XOR (hash >> 32). A key is present when its fingerprint XOR the
;; three slots' fingerprints is 0. JavaScript computes the 64-bit products on 32-bit halves (u64.ts); here they are
;; i64 instructions.
;;
;; probe(n, seedHigh, seedLow, segmentCountLength, segmentLength, segmentLengthMask, wide): answers[j] = 1 when
;; key j may be in the filter, else 0, j < n; returns how many 1s. The seed is given as its two 32-bit halves; `wide`
;; is 1 for 16-bit fingerprints, 0 for 8-bit.
;; contains(high, low, seedHigh, seedLow, segmentCountLength, segmentLength, segmentLengthMask, wide, table): 1 when
;; the one key high:low may be in the filter whose fingerprints start at `table`, else 0. A single `has` from
;; JavaScript: one call of 9 i32s, 9 ns a lookup where FuseProbe.contains takes 23 (1M random keys over a 1.1 MB
;; table in one process; the i64 products are what JavaScript spells out on 32-bit halves).
(module
  (import "filter" "memory" (memory 2))
  ;; The memory map above, exported for the loader (core's kernel-memory.ts), which refuses a module whose map is not
  ;; its own: where the hashes and the answers start, how many keys they hold, and where filters' tables may start.
  (global (export "hashesAt") i32 (i32.const 0))
  (global (export "answersAt") i32 (i32.const 16384))
  (global (export "keysMax") i32 (i32.const 1024))
  (global (export "scratchBytes") i32 (i32.const 65536))
  ;; Where the fingerprints of the filter at hand start in the memory (core's kernel-arena.ts places them, 64-byte
  ;; aligned, at or past 65536): filters sharing a memory share an instance, and the caller sets this before each
  ;; call. The loader names it `bits`, as every kernel's.
  (global $table (export "bits") (mut i32) (i32.const 65536))
  ;; The fingerprint in slot $slot of the table at $table: a byte, or (wide) a little-endian u16.
  (func $inline.at (param $table i32) (param $slot i32) (param $wide i32) (result i32)
    (if (result i32) (local.get $wide)
      (then (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $slot) (i32.const 1)))))
      (else (i32.load8_u (i32.add (local.get $table) (local.get $slot))))))
  ;; 1 when the 64-bit key may be in the filter whose fingerprints start at $table, else 0: the rule above, written
  ;; once for both entries.
  (func $inline.answer (param $key i64) (param $seed i64) (param $count i64) (param $segmentLength i32)
    (param $segmentLengthMask i32) (param $wide i32) (param $table i32) (result i32)
    (local $hash i64) (local $low i64) (local $h0 i32) (local $h1 i32) (local $h2 i32) (local $fp i32)
    ;; fmix64(key + seed)
    (local.set $hash (i64.add (local.get $key) (local.get $seed)))
    (local.set $hash (i64.xor (local.get $hash) (i64.shr_u (local.get $hash) (i64.const 33))))
    (local.set $hash (i64.mul (local.get $hash) (i64.const 0xff51afd7ed558ccd)))
    (local.set $hash (i64.xor (local.get $hash) (i64.shr_u (local.get $hash) (i64.const 33))))
    (local.set $hash (i64.mul (local.get $hash) (i64.const 0xc4ceb9fe1a85ec53)))
    (local.set $hash (i64.xor (local.get $hash) (i64.shr_u (local.get $hash) (i64.const 33))))
    ;; h0: the high 64 bits of hash * segmentCountLength (a u32), from its halves' products.
    (local.set $low
      (i64.shr_u (i64.mul (i64.and (local.get $hash) (i64.const 0xffffffff)) (local.get $count)) (i64.const 32)))
    (local.set $h0
      (i32.wrap_i64
        (i64.shr_u
          (i64.add (i64.mul (i64.shr_u (local.get $hash) (i64.const 32)) (local.get $count)) (local.get $low))
          (i64.const 32))))
    (local.set $h1
      (i32.xor (i32.add (local.get $h0) (local.get $segmentLength))
        (i32.and (i32.wrap_i64 (i64.shr_u (local.get $hash) (i64.const 18))) (local.get $segmentLengthMask))))
    (local.set $h2
      (i32.xor (i32.add (local.get $h0) (i32.shl (local.get $segmentLength) (i32.const 1)))
        (i32.and (i32.wrap_i64 (local.get $hash)) (local.get $segmentLengthMask))))
    (local.set $fp (i32.wrap_i64 (i64.xor (local.get $hash) (i64.shr_u (local.get $hash) (i64.const 32)))))
    (local.set $fp (i32.and (local.get $fp) (select (i32.const 0xffff) (i32.const 0xff) (local.get $wide))))
    (i32.eqz
      (i32.xor (local.get $fp)
        (i32.xor (call $inline.at (local.get $table) (local.get $h0) (local.get $wide))
          (i32.xor (call $inline.at (local.get $table) (local.get $h1) (local.get $wide))
            (call $inline.at (local.get $table) (local.get $h2) (local.get $wide)))))))
  ;; The 64-bit seed from its two 32-bit halves.
  (func $inline.seed (param $high i32) (param $low i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $high)) (i64.const 32)) (i64.extend_i32_u (local.get $low))))
  (func (export "probe") (param $n i32) (param $seedHigh i32) (param $seedLow i32) (param $segmentCountLength i32)
    (param $segmentLength i32) (param $segmentLengthMask i32) (param $wide i32) (result i32)
    (local $seed i64) (local $count i64) (local $j i32) (local $yes i32) (local $total i32)
    (local.set $count (i64.extend_i32_u (local.get $segmentCountLength)))
    (local.set $seed (call $inline.seed (local.get $seedHigh) (local.get $seedLow)))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $yes
          (call $inline.answer (i64.load (i32.shl (local.get $j) (i32.const 4))) (local.get $seed) (local.get $count)
            (local.get $segmentLength) (local.get $segmentLengthMask) (local.get $wide) (global.get $table)))
        (i32.store8 offset=16384 (local.get $j) (local.get $yes))
        (local.set $total (i32.add (local.get $total) (local.get $yes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
  ;; One key high:low (its two 32-bit halves) against the fingerprints at $table, given as a parameter rather than
  ;; through `bits`, so that a single lookup from JavaScript is one call (no global set first).
  (func (export "contains") (param $high i32) (param $low i32) (param $seedHigh i32) (param $seedLow i32)
    (param $segmentCountLength i32) (param $segmentLength i32) (param $segmentLengthMask i32) (param $wide i32)
    (param $table i32) (result i32)
    (call $inline.answer (call $inline.seed (local.get $high) (local.get $low))
      (call $inline.seed (local.get $seedHigh) (local.get $seedLow))
      (i64.extend_i32_u (local.get $segmentCountLength)) (local.get $segmentLength) (local.get $segmentLengthMask)
      (local.get $wide) (local.get $table)))
)
