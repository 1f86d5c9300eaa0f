// Types for the reference oracle (the package ships none).
declare module 'murmurhash3js-revisited' {
  const murmur: {
    x86: {
      hash128(bytes: Uint8Array, seed?: number): string;
      hash32(bytes: Uint8Array, seed?: number): number;
    };
  };
  export default murmur;
}
