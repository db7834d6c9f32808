// The local backend: the .csv files directly inside a folder's directory, read
// in name order. Sub-directories and hidden files are not read.
import { createReadStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { CsvFileRef } from './backend.js'

export async function listLocalFiles(path: string): Promise<CsvFileRef[]> {
  let entries
  try {
    entries = await readdir(path, { withFileTypes: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    throw new Error(`cannot read directory ${path} (${code})`)
  }
  const names = entries
    .filter((e) => e.isFile() && !e.name.startsWith('.') && e.name.toLowerCase().endsWith('.csv'))
    .map((e) => e.name)
    .sort()
  return Promise.all(
    names.map(async (name) => ({
      name,
      // Gone since the listing: unknown, and opening it reports the file as bad.
      size: await stat(join(path, name)).then(
        (s) => s.size,
        () => null,
      ),
      open: async () => createReadStream(join(path, name), { highWaterMark: 256 * 1024 }),
    })),
  )
}
