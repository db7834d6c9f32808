// Lines through points: the path of one series, broken where a value is
// missing, and the extent of all series. Pure; numbers for geometry only.

/** An SVG path through the points, with a gap wherever a point is null. */
export function linePath(points: readonly ([number, number] | null)[]): string {
  let path = ''
  let pen = false
  for (const point of points) {
    if (point === null) {
      pen = false
      continue
    }
    path += `${pen ? 'L' : 'M'}${point[0].toFixed(2)},${point[1].toFixed(2)}`
    pen = true
  }
  return path
}

/** Lowest and highest value over every series, ignoring the missing ones. */
export function extent(series: readonly (readonly (number | null)[])[]): [number, number] {
  let min = Infinity
  let max = -Infinity
  for (const values of series) {
    for (const value of values) {
      if (value === null) continue
      min = Math.min(min, value)
      max = Math.max(max, value)
    }
  }
  return min > max ? [0, 0] : [min, max]
}
