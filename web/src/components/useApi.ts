// Loading an answer for a page: the data, the error, and a reload, with the
// request cancelled when its inputs change or the page goes away.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'

export interface Loaded<T> {
  data: T | null
  error: ApiError | null
  loading: boolean
  reload: () => void
}

export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'Error', String(error))
}

export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load

  useEffect(() => {
    const controller = new AbortController()
    setLoading(true)
    loadRef
      .current(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return
        setData(value)
        setError(null)
        setLoading(false)
      })
      .catch((failure: unknown) => {
        if (controller.signal.aborted) return
        setError(toApiError(failure))
        setLoading(false)
      })
    return () => controller.abort()
  }, [...deps, tick])

  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data, error, loading, reload }
}
