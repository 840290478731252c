/** Placeholder: `forgefold serve` is being written separately and will replace this file. */
import type { ParsedArgs } from './args.js';

export async function serve(args: ParsedArgs): Promise<void> {
  void args;
  throw new Error('forgefold serve: not implemented');
}
