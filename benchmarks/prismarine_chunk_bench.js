// Times prismarine-chunk (the chunk codec Mineflayer uses) on the chunk-data files named on stdin.
// Reports columns/s for: load() alone, and load() + reading every block state (getBlockStateId over all
// 98,304 positions of a 24-section column), the equivalent of our dense decode. Used by chunk_codec.py.
const fs = require('fs')
const Vec3 = require('vec3')
const { version, files, seconds } = JSON.parse(fs.readFileSync(0, 'utf8'))
const Chunk = require('prismarine-chunk')(version)
const buffers = files.map(f => fs.readFileSync(f))

function loadOnly (buf) {
  const c = new Chunk({ minY: -64, worldHeight: 384 })
  c.load(buf)
  return c
}

function loadAndReadAll (buf) {
  const c = loadOnly(buf)
  const p = new Vec3(0, 0, 0)
  let sum = 0
  for (let y = -64; y < 320; y++) {
    p.y = y
    for (let z = 0; z < 16; z++) {
      p.z = z
      for (let x = 0; x < 16; x++) {
        p.x = x
        sum += c.getBlockStateId(p)
      }
    }
  }
  return sum
}

function rate (fn) {
  for (const b of buffers) fn(b) // warm-up (JIT)
  let n = 0
  const t0 = process.hrtime.bigint()
  let elapsed = 0
  while (elapsed < seconds) {
    for (const b of buffers) fn(b)
    n += buffers.length
    elapsed = Number(process.hrtime.bigint() - t0) / 1e9
  }
  return n / elapsed
}

const out = { load: rate(loadOnly), load_and_read_all: rate(loadAndReadAll) }
process.stdout.write(JSON.stringify(out))
