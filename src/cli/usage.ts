// Usage errors of the `coffer` program: an unknown option, a missing or an extra
// argument. Every command reports them the same way: one line naming what is wrong,
// then the command's usage, on stderr, and exit 2 (docs/operations.md), so a script
// can tell "called wrongly" (2) from "tried and failed" (1).
import { parseArgs, type ParseArgsConfig } from 'node:util'

export const USAGE_EXIT_CODE = 2

export class UsageError extends Error {
  /** `message` is the whole first line (`coffer export: …`); `usage` follows it. */
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message)
  }
}

/** node:util's parseArgs, whose own errors become a UsageError of `command`. */
export function parseCommandLine<T extends ParseArgsConfig>(
  command: string,
  config: T,
  usage: string,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config)
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw error
    throw new UsageError(`${command}: ${(error as Error).message}`, usage)
  }
}

/** Prints a usage error as every command does and returns the exit code. */
export function reportUsageError(error: UsageError): number {
  console.error(`${error.message}\n\n${error.usage}`)
  return USAGE_EXIT_CODE
}
