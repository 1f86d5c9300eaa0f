import type { Command } from 'commander';
import type { Interrupts } from '../interrupts.js';
import type { WriterOptions } from '../locked-file.js';

/** What every command's registration gets from the program. */
export interface CommandContext {
  /** Records the command's exit status. */
  readonly exit: (code: number) => void;
  /** How the commands see a stop signal. */
  readonly interrupts: Interrupts;
  /** The options of a command that writes a filter file, from its `--wait`. */
  readonly writer: (options: { wait?: number }) => WriterOptions;
}

/** Adds one command (or a family of them) to the program. */
export type Registration = (program: Command, context: CommandContext) => void;
