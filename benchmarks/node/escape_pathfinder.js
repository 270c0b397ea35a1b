// Mineflayer 4.25.0 + mineflayer-pathfinder 2.4.5 side of benchmarks/escape.py.
//
// usage: node escape_pathfinder.js HOST PORT USERNAME GOAL_X GOAL_Y GOAL_Z RANGE TIMEOUT_S
// Logs in and prints {"event": "spawn"} once the chunks around it are loaded; the Python side then puts
// the player into the predicament (teleport, inventory) and writes "go" on stdin. The bot then runs
// bot.pathfinder.goto(GoalNear(x, y, z, range)) with the pathfinder's DEFAULT movements (new Movements(bot):
// digging on, 1x1 towers on, parkour on, scaffolding blocks dirt and cobblestone, drops up to 4) and prints
// {"event": "done", "ok", "error", "pos", "seconds", "resets"} — or "timeout" after TIMEOUT_S — and quits.
'use strict'
const path = require('path')
const readline = require('readline')
const nm = path.join(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(nm, 'mineflayer'))
const { pathfinder, Movements, goals } = require(path.join(nm, 'mineflayer-pathfinder'))

const [host, port, username, gx, gy, gz, range, timeoutS] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })
bot.loadPlugin(pathfinder)
bot.on('error', (e) => { out({ event: 'error', error: String(e) }); process.exit(2) })
bot.on('kicked', (r) => { out({ event: 'error', error: 'kicked: ' + String(r) }); process.exit(2) })
bot.once('spawn', async () => {
  await bot.waitForChunksToLoad()
  out({ event: 'spawn' })
})
const pos = () => bot.entity ? [bot.entity.position.x, bot.entity.position.y, bot.entity.position.z] : null
let resets = 0
bot.on('path_reset', () => { resets++ })
const rl = readline.createInterface({ input: process.stdin })
rl.on('line', async (line) => {
  if (line.trim() !== 'go') return
  const t0 = process.hrtime.bigint()
  const secs = () => Number(process.hrtime.bigint() - t0) / 1e9
  const mv = new Movements(bot)
  bot.pathfinder.setMovements(mv)
  const goal = new goals.GoalNear(Number(gx), Number(gy), Number(gz), Number(range))
  const timer = setTimeout(() => {
    bot.pathfinder.stop()
    out({ event: 'done', ok: false, error: 'timeout', pos: pos(), seconds: secs(), resets })
    finish()
  }, Number(timeoutS) * 1000)
  try {
    await bot.pathfinder.goto(goal)
    clearTimeout(timer)
    out({ event: 'done', ok: true, error: null, pos: pos(), seconds: secs(), resets })
  } catch (e) {
    clearTimeout(timer)
    out({ event: 'done', ok: false, error: String(e && e.name ? e.name + ': ' + e.message : e), pos: pos(), seconds: secs(), resets })
  }
  finish()
})
function finish () {
  setTimeout(() => { bot.quit(); setTimeout(() => process.exit(0), 300) }, 300)
}
