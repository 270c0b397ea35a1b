// A Mineflayer 4.25.0 client for the control-plane tests, remote-controlled with JSON lines.
//
// usage: node control_bot.js HOST PORT USERNAME
// stdout: {"event": "ready"|"message"|"kicked"|"end"|"error", ...} and one {"id": N, ...} reply per command.
// stdin:  {"id": N, "cmd": "state"|"inventory"|"block"|"chat"|"quit", ...}. "state" reports what the *client* knows: experience
// level, active effects (from entity_effect packets), time of day, position, game mode and difficulty.
'use strict'
const path = require('path')
const readline = require('readline')
const mineflayer = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })

const effects = {} // effect id -> {amplifier, duration, flags} as the client received them
const seen = { difficulty: null, timeOfDay: null, packets: {} }
bot._client.on('entity_effect', (p) => {
  if (bot.entity && p.entityId === bot.entity.id) effects[p.effectId] = { amplifier: p.amplifier, duration: p.duration, flags: p.hideParticles }
})
bot._client.on('remove_entity_effect', (p) => { if (bot.entity && p.entityId === bot.entity.id) delete effects[p.effectId] })
bot._client.on('difficulty', (p) => { seen.difficulty = p.difficulty })
bot._client.on('update_time', (p) => { seen.timeOfDay = Number(p.time) })
bot._client.on('packet', (data, meta) => { seen.packets[meta.name] = (seen.packets[meta.name] || 0) + 1 })
bot.on('messagestr', (text) => out({ event: 'message', text }))
bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.on('kicked', (reason) => out({ event: 'kicked', reason: String(reason) }))
bot.on('end', (reason) => { out({ event: 'end', reason: String(reason) }); process.exit(0) })
bot.once('spawn', async () => {
  await bot.waitForChunksToLoad()
  out({ event: 'ready', pos: bot.entity.position, protocol: bot.protocolVersion })
})

const commands = {
  state: async () => ({
    level: bot.experience.level,
    points: bot.experience.points,
    effects,
    timeOfDay: seen.timeOfDay,
    difficulty: seen.difficulty,
    gameMode: bot.game.gameMode,
    pos: bot.entity.position,
    packets: seen.packets
  }),
  chat: async (msg) => { bot.chat(msg.text); return {} },
  inventory: async () => ({ items: bot.inventory.items().map((it) => [it.name, it.count]) }),
  block: async (msg) => {
    const { Vec3 } = require(path.join(__dirname, '..', '..', 'node_modules', 'vec3'))
    const b = bot.blockAt(new Vec3(msg.x, msg.y, msg.z))
    return { name: b ? b.name : null }
  },
  quit: async () => { setTimeout(() => bot.quit(), 10); return {} }
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let msg
  try { msg = JSON.parse(line) } catch (e) { return }
  try {
    const res = await commands[msg.cmd](msg)
    out({ id: msg.id, ok: true, ...res })
  } catch (e) {
    out({ id: msg.id, ok: false, error: String(e && e.stack ? e.stack : e) })
  }
})
