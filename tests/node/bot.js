// A Mineflayer bot remote-controlled over stdin/stdout with JSON lines, for the embedded-server tests.
//
// usage: node bot.js HOST PORT USERNAME VERSION
// stdout: {"event": "spawn"|"ready"|"kicked"|"end"|"error", ...} and one {"id": N, "ok": bool, ...} reply
// per command. stdin: {"id": N, "cmd": "...", ...} commands (see `commands` below). The bot never decides
// anything itself: tests/server/test_mineflayer.py drives it and checks the server's view.
'use strict'
const path = require('path')
const readline = require('readline')
const mineflayer = require(path.join(__dirname, '..', '..', 'node_modules', 'mineflayer'))
const { Vec3 } = require(path.join(__dirname, '..', '..', 'node_modules', 'vec3'))

const [host, port, username, version] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot({ host, port: Number(port), username, version, auth: 'offline', viewDistance: 'normal' })

bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.on('kicked', (reason) => out({ event: 'kicked', reason: String(reason) }))
bot.on('end', (reason) => { out({ event: 'end', reason: String(reason) }); process.exit(0) })
bot.once('spawn', async () => {
  out({ event: 'spawn', pos: bot.entity.position })
  await bot.waitForChunksToLoad()
  out({ event: 'ready', pos: bot.entity.position, version: bot.version, protocol: bot.protocolVersion })
})

// Mineflayer 4.25.0 cannot list other players on 1.19.x: its player_info handler expects an object
// `action` but minecraft-protocol decodes 1.19.2's action as the string "add_player", so bot.players
// stays empty and named_entity_spawn is then ignored (lib/plugins/entities.js). We therefore track other
// players from the decoded packets themselves, which still checks what the client receives.
const others = { names: {}, entities: {} } // uuid -> name, entityId -> {name, pos}
bot._client.on('player_info', (p) => {
  for (const d of p.data) {
    if (p.action === 'add_player' || p.action === 0) others.names[d.uuid || d.UUID] = d.name
    if (p.action === 'remove_player' || p.action === 4) delete others.names[d.uuid || d.UUID]
  }
})
bot._client.on('named_entity_spawn', (p) => {
  others.entities[p.entityId] = { uuid: p.playerUUID, pos: { x: p.x, y: p.y, z: p.z } }
})
bot._client.on('entity_teleport', (p) => {
  const e = others.entities[p.entityId]
  if (e) e.pos = { x: p.x, y: p.y, z: p.z }
})
bot._client.on('rel_entity_move', (p) => {
  const e = others.entities[p.entityId]
  if (e) { e.pos.x += p.dX / 4096; e.pos.y += p.dY / 4096; e.pos.z += p.dZ / 4096 }
})
bot._client.on('entity_destroy', (p) => { for (const id of p.entityIds) delete others.entities[id] })

function slots () {
  const res = {}
  bot.inventory.slots.forEach((it, i) => { if (it) res[i] = [it.name, it.count] })
  return res
}

function count (name) {
  return bot.inventory.items().filter((it) => it.name === name).reduce((a, it) => a + it.count, 0) +
    (bot.inventory.slots[45] && bot.inventory.slots[45].name === name ? bot.inventory.slots[45].count : 0)
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function until (pred, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (pred()) return true
    await sleep(25)
  }
  return pred()
}

const commands = {
  async blocks ({ positions }) {
    return { names: positions.map(([x, y, z]) => { const b = bot.blockAt(new Vec3(x, y, z)); return b ? b.name : null }) }
  },
  async position () {
    return { pos: bot.entity.position, onGround: bot.entity.onGround }
  },
  async wait_position ({ x, y, z, within, ms }) {
    const ok = await until(() => bot.entity.position.distanceTo(new Vec3(x, y, z)) <= within, ms || 3000)
    return { reached: ok, pos: bot.entity.position }
  },
  async settle ({ ms }) {
    const ok = await until(() => bot.entity.onGround, ms || 3000)
    return { onGround: ok, pos: bot.entity.position }
  },
  async dig ({ x, y, z }) {
    const block = bot.blockAt(new Vec3(x, y, z))
    const t0 = Date.now()
    await bot.dig(block, true)
    return { block: block.name, ms: Date.now() - t0, digTime: bot.digTime(block), after: bot.blockAt(new Vec3(x, y, z)).name }
  },
  async dig_too_fast ({ x, y, z }) {
    // start digging then claim it finished at once (what a cheating client would send)
    const pos = new Vec3(x, y, z)
    bot._client.write('block_dig', { status: 0, location: pos, face: 1, sequence: 1001 })
    bot._client.write('block_dig', { status: 2, location: pos, face: 1, sequence: 1002 })
    await sleep(500)
    return { after: bot.blockAt(pos).name }
  },
  async wait_item ({ name, atLeast, ms }) {
    const ok = await until(() => count(name) >= atLeast, ms || 3000)
    return { got: ok, count: count(name), slots: slots() }
  },
  async inventory () {
    return { slots: slots(), held: bot.quickBarSlot }
  },
  async equip ({ name }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    if (!it) throw new Error('no ' + name + ' in inventory')
    await bot.equip(it, 'hand')
    return { held: bot.heldItem && bot.heldItem.name }
  },
  async place ({ against, face }) {
    const ref = bot.blockAt(new Vec3(...against))
    await bot.placeBlock(ref, new Vec3(...face))
    const p = ref.position.plus(new Vec3(...face))
    return { placed: bot.blockAt(p).name }
  },
  async click ({ slot, button, mode }) {
    await bot.clickWindow(slot, button, mode)
    return { slots: slots() }
  },
  async look ({ yaw, pitch }) {
    await bot.look(yaw, pitch, true)
    return {}
  },
  async walk ({ control, ms }) {
    bot.setControlState(control, true)
    await sleep(ms)
    bot.setControlState(control, false)
    await until(() => bot.entity.onGround, 2000)
    return { pos: bot.entity.position }
  },
  async seen ({ username }) {
    const listed = Object.values(others.names).includes(username)
    const ent = Object.values(others.entities).find((e) => others.names[e.uuid] === username)
    return { pos: ent ? ent.pos : null, listed, spawned: Boolean(ent) }
  },
  async wait_block ({ x, y, z, name, ms }) {
    const ok = await until(() => { const b = bot.blockAt(new Vec3(x, y, z)); return b && b.name === name }, ms || 3000)
    return { ok }
  },
  async toss ({ name, n }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    await bot.toss(it.type, null, n)
    return { slots: slots() }
  },
  async raw_move ({ x, y, z }) {
    // what a cheating client would send: a position the physics never produced
    const before = bot.entity.position.clone()
    bot._client.write('position', { x, y, z, onGround: true })
    await sleep(500)
    return { before, after: bot.entity.position }
  },
  async columns () {
    return { columns: bot.world.getColumns().map((c) => [Number(c.chunkX), Number(c.chunkZ)]) }
  },
  async quit () {
    setTimeout(() => process.exit(0), 200)
    bot.quit()
    return {}
  }
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let msg
  try { msg = JSON.parse(line) } catch (e) { out({ event: 'error', error: 'bad command line: ' + line }); return }
  try {
    const res = await commands[msg.cmd](msg)
    out(Object.assign({ id: msg.id, ok: true }, res))
  } catch (e) {
    out({ id: msg.id, ok: false, error: String(e && e.message ? e.message : e) })
  }
})
