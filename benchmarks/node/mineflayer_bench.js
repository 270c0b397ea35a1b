// Mineflayer 4.25.0 side of benchmarks/body_vs_mineflayer.py.
//
// usage: node mineflayer_bench.js HOST PORT USERNAME VERSION [GOALX GOALZ RANGE [MOVES]]
// Prints one JSON line: seconds from createBot to 'spawn' and to waitForChunksToLoad() (Mineflayer's own
// criterion: the 5x5 columns around the player), columns loaded then, and process RSS; then quits.
// With a goal: also plans a path there with mineflayer-pathfinder 2.4.5 (GoalNearXZ, no digging, no
// scaffolding, as the body's planner in the benchmark: walk, jump, drop, swim), once the view-distance
// columns are in, 5 times, and prints the median plan time, nodes visited and the path length. MOVES
// "default" keeps the pathfinder's default movements instead (digging, 1x1 towers, parkour, scaffolding).
'use strict'
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer'))

const [host, port, username, version, goalX, goalZ, goalRange, moves] = process.argv.slice(2)
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
  const row = { spawn_s: spawn, chunks_s: chunks, columns, rss_mb: process.memoryUsage().rss / 1048576, version: bot.version }
  if (goalX !== undefined) row.plan = await plan(Number(goalX), Number(goalZ), Number(goalRange))
  out(row)
  clearTimeout(hard)
  bot.quit()
  setTimeout(() => process.exit(0), 200)
})

// Plan to (x, z) with mineflayer-pathfinder: each run iterates its A* to the end (no per-tick slicing).
async function plan (x, z, range) {
  const { pathfinder, Movements, goals } = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer-pathfinder'))
  bot.loadPlugin(pathfinder)
  // the view-distance columns, as the body waits for them before its plan
  const until = Date.now() + 20000
  let n = -1
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const now = Object.keys(bot.world.async.columns || {}).length
    if (now === n) break
    n = now
  }
  const mv = new Movements(bot)
  if (moves !== 'default') {
    mv.canDig = false
    mv.allow1by1towers = false
    mv.allowParkour = false
    mv.scafoldingBlocks = []
  }
  bot.pathfinder.setMovements(mv)
  const goal = new goals.GoalNearXZ(x, z, range)
  const times = []
  let result = null
  for (let i = 0; i < 5; i++) {
    const t = process.hrtime.bigint()
    const gen = bot.pathfinder.getPathFromTo(mv, bot.entity.position, goal, { timeout: 20000, tickTimeout: 20000 })
    for (const step of gen) result = step.result
    times.push(Number(process.hrtime.bigint() - t) / 1e9)
  }
  times.sort((a, b) => a - b)
  let length = 0
  for (let i = 1; i < result.path.length; i++) length += result.path[i].distanceTo(result.path[i - 1])
  return { moves: moves === 'default' ? 'default' : 'walk', plan_s: times[2], status: result.status, nodes: result.visitedNodes, steps: result.path.length, path_blocks: length, columns: n }
}
