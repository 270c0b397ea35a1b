// Mineflayer 4.25.0 side of benchmarks/body_vs_mineflayer.py.
//
// usage: node mineflayer_bench.js HOST PORT USERNAME VERSION
// Prints one JSON line: seconds from createBot to 'spawn' and to waitForChunksToLoad() (Mineflayer's own
// criterion: the 5x5 columns around the player), columns loaded then, and process RSS; then quits.
'use strict'
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer'))

const [host, port, username, version] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const hard = setTimeout(() => { out({ error: 'timeout' }); process.exit(3) }, 60000)
const t0 = process.hrtime.bigint()
const secs = () => Number(process.hrtime.bigint() - t0) / 1e9
const bot = mineflayer.createBot({ host, port: Number(port), username, version, auth: 'offline', viewDistance: 'short' })
bot.on('error', (e) => { out({ error: String(e) }); process.exit(2) })
bot.on('kicked', (r) => { out({ error: 'kicked: ' + String(r) }); process.exit(2) })
bot.once('spawn', async () => {
  const spawn = secs()
  await bot.waitForChunksToLoad()
  const chunks = secs()
  const columns = Object.keys(bot.world.async.columns || {}).length
  if (global.gc) global.gc()
  out({ spawn_s: spawn, chunks_s: chunks, columns, rss_mb: process.memoryUsage().rss / 1048576, version: bot.version })
  clearTimeout(hard)
  bot.quit()
  setTimeout(() => process.exit(0), 200)
})
