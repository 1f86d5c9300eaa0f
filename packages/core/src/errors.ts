/**
 * Every error bloomkit throws on purpose is a {@link BloomError}. Messages start with the API that threw and name
 * the parameter or field and its allowed range, e.g.
 * `StandardBloomFilter.create: fpr must be in (0, 1), got 1.5`.
 */
export class BloomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BloomError';
  }
}

/** An argument is of the wrong type or outside its allowed range. Nothing was changed. */
export class InvalidArgumentError extends BloomError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidArgumentError';
  }
}

/** Two filters cannot be combined (different kind, size, number of hashes, seed or counter width). */
export class IncompatibleFiltersError extends BloomError {
  constructor(message: string) {
    super(message);
    this.name = 'IncompatibleFiltersError';
  }
}

/** Bytes that are not a bloomkit filter, are truncated or corrupt, or describe an impossible filter. */
export class FormatError extends BloomError {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

/** Bytes written by a newer (or unknown) format version than this reader understands. */
export class UnsupportedVersionError extends FormatError {
  /** The version found in the header. */
  readonly version: number;
  constructor(message: string, version: number) {
    super(message);
    this.name = 'UnsupportedVersionError';
    this.version = version;
  }
}

/**
 * The stored CRC-32C does not match the bytes: they were changed after they were written (a torn write, a bad
 * disk, an edit). Everything else about them may still be valid, which is why `bloomkit info` still reports them.
 */
export class ChecksumMismatchError extends FormatError {
  constructor(message: string) {
    super(message);
    this.name = 'ChecksumMismatchError';
  }
}
