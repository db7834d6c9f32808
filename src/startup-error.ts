// Why `coffer serve` could not start (a port taken, a refused setting): cli.ts
// prints its message alone. Its own module so that cli.ts can recognise it
// without loading app.ts, which only the commands that start services load.
export class StartupError extends Error {
  override name = 'StartupError'
}
