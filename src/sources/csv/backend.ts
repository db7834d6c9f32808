// What the CSV source needs from a folder backend (local directory or drive folder).
import type { Readable } from 'node:stream'

export interface CsvFileRef {
  /** Shown in warnings: the file name. */
  name: string
  /** In bytes, when the backend knows it: large files are parsed on a worker thread. */
  size: number | null
  open(): Promise<Readable>
}
