;; CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial and final XOR 0xFFFFFFFF) by slicing-by-16, the
;; same algorithm as checksum.ts in WebAssembly, where loads carry no bounds check and the JIT keeps the 16 table
;; lookups of a step independent (a balanced XOR tree: four levels, not a chain of fifteen).
;;
;; Memory (3 pages, 192 KiB), laid out by the caller (crc32c-instance.ts):
;;   [0, 16384)        the 16 tables of 256 u32 each, table k at k·1024: table 0 is the byte-at-a-time table,
;;                     table k advances k more bytes (checksum.ts builds them and copies them in once);
;;   [65536, 196608)   the window the caller copies the bytes to checksum into, 128 KiB at a time.
;;
;; update(crc, p, n): the CRC-32C of the n bytes at p, continuing from crc (the result for the bytes before them,
;; 0 for none). Words are read little-endian, as WebAssembly always does.
(module
  (memory (export "memory") 3)
  (func (export "update") (param $crc i32) (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    ;; Sixteen bytes a step: four words, the first XORed with the CRC so far.
    (block $words
      (loop $step
        (br_if $words (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $a (i32.xor (local.get $crc) (i32.load (local.get $p))))
        (local.set $b (i32.load offset=4 (local.get $p)))
        (local.set $c (i32.load offset=8 (local.get $p)))
        (local.set $d (i32.load offset=12 (local.get $p)))
        (local.set $crc
          (i32.xor
          (i32.xor
            ;; bytes 0-3: tables 15-12
            (i32.xor
              (i32.xor
                (i32.load offset=15360 (i32.shl (i32.and (local.get $a) (i32.const 255)) (i32.const 2)))
                (i32.load offset=14336 (i32.and (i32.shr_u (local.get $a) (i32.const 6)) (i32.const 1020))))
              (i32.xor
                (i32.load offset=13312 (i32.and (i32.shr_u (local.get $a) (i32.const 14)) (i32.const 1020)))
                (i32.load offset=12288 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2)))))
            ;; bytes 4-7: tables 11-8
            (i32.xor
              (i32.xor
                (i32.load offset=11264 (i32.shl (i32.and (local.get $b) (i32.const 255)) (i32.const 2)))
                (i32.load offset=10240 (i32.and (i32.shr_u (local.get $b) (i32.const 6)) (i32.const 1020))))
              (i32.xor
                (i32.load offset=9216 (i32.and (i32.shr_u (local.get $b) (i32.const 14)) (i32.const 1020)))
                (i32.load offset=8192 (i32.shl (i32.shr_u (local.get $b) (i32.const 24)) (i32.const 2))))))
          (i32.xor
            ;; bytes 8-11: tables 7-4
            (i32.xor
              (i32.xor
                (i32.load offset=7168 (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2)))
                (i32.load offset=6144 (i32.and (i32.shr_u (local.get $c) (i32.const 6)) (i32.const 1020))))
              (i32.xor
                (i32.load offset=5120 (i32.and (i32.shr_u (local.get $c) (i32.const 14)) (i32.const 1020)))
                (i32.load offset=4096 (i32.shl (i32.shr_u (local.get $c) (i32.const 24)) (i32.const 2)))))
            ;; bytes 12-15: tables 3-0
            (i32.xor
              (i32.xor
                (i32.load offset=3072 (i32.shl (i32.and (local.get $d) (i32.const 255)) (i32.const 2)))
                (i32.load offset=2048 (i32.and (i32.shr_u (local.get $d) (i32.const 6)) (i32.const 1020))))
              (i32.xor
                (i32.load offset=1024 (i32.and (i32.shr_u (local.get $d) (i32.const 14)) (i32.const 1020)))
                (i32.load (i32.shl (i32.shr_u (local.get $d) (i32.const 24)) (i32.const 2))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $step)))
    ;; The last 0-15 bytes one at a time, with table 0.
    (block $bytes
      (loop $byte
        (br_if $bytes (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $crc
          (i32.xor
            (i32.load
              (i32.shl
                (i32.and (i32.xor (local.get $crc) (i32.load8_u (local.get $p))) (i32.const 255))
                (i32.const 2)))
            (i32.shr_u (local.get $crc) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (i32.xor (local.get $crc) (i32.const -1))))
