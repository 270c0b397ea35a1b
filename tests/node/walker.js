// A load-test bot: walks in random directions and digs the ground next to it until DURATION seconds
// have passed, then prints {"event": "done", "digs": n, "moves": n} and exits.
// usage: node walker.js HOST PORT USERNAME DURATION_S SEED
'use strict'
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer'))
const { Vec3 } = require(path.join(__dirname, '..', '..', 'node_modules', 'vec3'))

const [host, port, username, duration, seed] = process.argv.slice(2)
let state = Number(seed) * 2654435761 % 4294967296 || 1
const rand = () => { state = (state * 1664525 + 1013904223) % 4294967296; return state / 4294967296 }
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })
bot.on('kicked', (r) => out({ event: 'kicked', reason: String(r) }))
bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.once('spawn', async () => {
  await bot.waitForChunksToLoad()
  out({ event: 'ready' })
  const end = Date.now() + Number(duration) * 1000
  let digs = 0
  let moves = 0
  let refused = 0
  while (Date.now() < end) {
    await bot.look(rand() * 2 * Math.PI, 0, true)
    bot.setControlState('forward', true)
    bot.setControlState('sprint', rand() < 0.5)
    bot.setControlState('jump', rand() < 0.3)
    await sleep(800 + rand() * 1700)
    bot.clearControlStates()
    moves++
    await sleep(200)
    const p = bot.entity.position.floored()
    const target = bot.blockAt(p.offset(rand() < 0.5 ? 1 : -1, -1, 0))
    if (target && target.diggable && target.name !== 'air' && target.name !== 'bedrock' && Date.now() < end - 2000) {
      try {
        // a refused dig leaves Mineflayer waiting for a block update that never comes: bound it
        await Promise.race([bot.dig(target, true), sleep(5000).then(() => { throw new Error('dig timeout') })])
        digs++
      } catch (e) { bot.stopDigging(); refused++ }
    }
  }
  out({ event: 'done', digs, moves, refused })
  bot.quit()
  setTimeout(() => process.exit(0), 300)
})
