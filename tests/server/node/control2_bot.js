// A Mineflayer 4.25.0 client for the control-plane tests against the embedded server (tests/control2),
// remote-controlled with JSON lines (the protocol of tests/control/control_node_bot.py).
//
// usage: node control2_bot.js HOST PORT USERNAME
// stdout: {"event": "ready"|"message"|"death"|"respawn"|"kicked"|"end"|"error", ...} and one
//         {"id": N, "ok": bool, ...} reply per command.
// "state" reports what the *client* knows (from the packets it received): experience, effects, time of
// day, difficulty, weather, game mode, abilities, health, position and the advancement progress.
// Scene set-up in the harness test only uses what a vanilla harness uses: chat commands (bot.chat('/...')),
// bot.creative.setInventorySlot, digging, placing, window clicks (never bot.craft: its recipes are static
// client data, so what the bot holds is the server's result).
'use strict'
const path = require('path')
const readline = require('readline')
const nm = path.join(__dirname, '..', '..', '..', 'node_modules')
const mineflayer = require(path.join(nm, 'mineflayer'))
const { Vec3 } = require(path.join(nm, 'vec3'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })
const Item = require(path.join(nm, 'prismarine-item'))(bot.version || '1.19.2')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const effects = {} // effect id -> {amplifier, duration, flags} as received
const seen = { difficulty: null, timeOfDay: null, abilities: null, rain: null, thunder: null, advancements: {} }
bot._client.on('entity_effect', (p) => {
  if (bot.entity && p.entityId === bot.entity.id) effects[p.effectId] = { amplifier: p.amplifier, duration: p.duration, flags: p.hideParticles }
})
bot._client.on('remove_entity_effect', (p) => { if (bot.entity && p.entityId === bot.entity.id) delete effects[p.effectId] })
bot._client.on('difficulty', (p) => { seen.difficulty = p.difficulty })
bot._client.on('update_time', (p) => { seen.timeOfDay = Number(p.time) })
bot._client.on('abilities', (p) => { seen.abilities = p.flags })
bot._client.on('game_state_change', (p) => {
  // minecraft-data 3.119 maps the reason to a name; older tables give the number
  if (p.reason === 7 || p.reason === 'rain_level_change') seen.rain = p.gameMode
  if (p.reason === 8 || p.reason === 'thunder_level_change') seen.thunder = p.gameMode
  // Mineflayer 4.25 compares the reason with 3, so with minecraft-data's mapped name bot.game.gameMode
  // never follows a game-mode change: track the packet itself (the same happens against vanilla)
  if (p.reason === 3 || p.reason === 'change_game_mode') seen.gameMode = ['survival', 'creative', 'adventure', 'spectator'][p.gameMode]
})
bot._client.on('advancements', (p) => {
  if (p.reset) seen.advancements = {}
  for (const m of p.progressMapping) {
    const got = m.value.filter((c) => c.criterionProgress !== undefined && c.criterionProgress !== null)
    seen.advancements[m.key] = got.map((c) => c.criterionIdentifier)
  }
})
bot.on('messagestr', (text) => out({ event: 'message', text }))
bot.on('death', () => out({ event: 'death' }))
bot.on('respawn', () => out({ event: 'respawn' }))
bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.on('kicked', (reason) => out({ event: 'kicked', reason: String(reason) }))
bot.on('end', (reason) => { out({ event: 'end', reason: String(reason) }); process.exit(0) })
bot.once('spawn', async () => {
  await bot.waitForChunksToLoad()
  out({ event: 'ready', pos: bot.entity.position })
})

async function until (pred, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (pred()) return true
    await sleep(25)
  }
  return pred()
}
const win = () => bot.currentWindow || bot.inventory
function slotsOf (w) {
  const res = {}
  w.slots.forEach((it, i) => { if (it) res[i] = [it.name, it.count] })
  return res
}
function count (name) {
  return bot.inventory.slots.filter((it, i) => it && i >= 9 && it.name === name).reduce((a, it) => a + it.count, 0)
}
function findSlot (w, name) {
  for (let i = w.inventoryStart; i < w.inventoryEnd; i++) {
    const it = w.slots[i]
    if (it && it.name === name) return i
  }
  throw new Error('no ' + name + ' in window ' + w.type + ': ' + JSON.stringify(slotsOf(w)))
}
async function click (slot, button, mode) {
  await bot.clickWindow(slot, button, mode)
  await sleep(60) // let the server's correction (if any) arrive before the next click
}
const blockName = (x, y, z) => { const b = bot.blockAt(new Vec3(x, y, z)); return b ? b.name : null }

const commands = {
  async state () {
    return {
      level: bot.experience.level,
      points: bot.experience.points,
      effects,
      timeOfDay: seen.timeOfDay,
      difficulty: seen.difficulty,
      gameMode: seen.gameMode || bot.game.gameMode,
      abilities: seen.abilities,
      rain: seen.rain,
      thunder: seen.thunder,
      health: bot.health,
      pos: bot.entity.position,
      advancements: seen.advancements
    }
  },
  async chat ({ text }) { bot.chat(text); return {} },
  async inventory () { return { items: bot.inventory.items().map((it) => [it.name, it.count]), slots: slotsOf(bot.inventory) } },
  async wait_block ({ x, y, z, name, ms }) {
    const reached = await until(() => blockName(x, y, z) === name, ms || 5000)
    return { reached, name: blockName(x, y, z) }
  },
  async wait_item ({ name, atLeast, ms }) {
    const ok = await until(() => count(name) >= atLeast, ms || 5000)
    return { got: ok, count: count(name), slots: slotsOf(bot.inventory) }
  },
  async wait_mode ({ mode, ms }) {
    const reached = await until(() => seen.gameMode === mode, ms || 5000)
    return { reached, gameMode: seen.gameMode }
  },
  async creative_set ({ slot, name, count }) {
    const id = bot.registry.itemsByName[name].id
    await bot.creative.setInventorySlot(slot, name ? new Item(id, count) : null)
    return { slots: slotsOf(bot.inventory) }
  },
  async dig ({ x, y, z, name }) {
    await until(() => blockName(x, y, z) === name, 3000)
    const block = bot.blockAt(new Vec3(x, y, z))
    await bot.dig(block, true)
    return { block: block.name, after: blockName(x, y, z) }
  },
  async equip ({ name }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    if (!it) throw new Error('no ' + name)
    await bot.equip(it, 'hand')
    return { held: bot.heldItem && bot.heldItem.name }
  },
  async place ({ against, face }) {
    const ref = bot.blockAt(new Vec3(...against))
    await bot.placeBlock(ref, new Vec3(...face))
    return { placed: bot.blockAt(ref.position.plus(new Vec3(...face))).name }
  },
  async look_at ({ x, y, z }) {
    await bot.lookAt(new Vec3(x, y, z), true)
    return {}
  },
  // Put one item of each named stack into grid slots, then shift-click the result into the inventory.
  async craft ({ grid }) {
    const w = win()
    for (const [slot, name] of grid) {
      const from = findSlot(w, name)
      await click(from, 0, 0) // pick the stack up
      await click(slot, 1, 0) // right click: one item into the grid slot
      await click(from, 0, 0) // put the rest back
    }
    await until(() => w.slots[0] !== null, 2000)
    const result = w.slots[0] ? [w.slots[0].name, w.slots[0].count] : null
    await click(0, 0, 1)
    await sleep(150)
    return { result, slots: slotsOf(w) }
  },
  async open ({ x, y, z }) {
    const w = await bot.openBlock(bot.blockAt(new Vec3(x, y, z)))
    return { type: w.type, windowId: w.id, slots: slotsOf(w) }
  },
  async close () {
    if (bot.currentWindow) bot.closeWindow(bot.currentWindow)
    await sleep(100)
    return { slots: slotsOf(bot.inventory) }
  },
  async put ({ slot, name, n }) {
    const w = win()
    const from = findSlot(w, name)
    await click(from, 0, 0)
    for (let i = 0; i < n; i++) await click(slot, 1, 0)
    if (w.selectedItem) await click(from, 0, 0)
    await sleep(100)
    return { slots: slotsOf(w) }
  },
  async wait_slot ({ slot, name, atLeast, ms }) {
    const w = win()
    const reached = await until(() => w.slots[slot] && w.slots[slot].name === name && w.slots[slot].count >= atLeast, ms || 15000)
    return { reached, slots: slotsOf(w) }
  },
  async shift ({ slot }) {
    await click(slot, 0, 1)
    await sleep(150)
    return { slots: slotsOf(win()) }
  },
  async enchant ({ x, y, z, item, choice }) {
    const table = await bot.openEnchantmentTable(bot.blockAt(new Vec3(x, y, z)))
    await click(findSlot(table, item), 0, 1)
    await click(findSlot(table, 'lapis_lazuli'), 0, 1)
    await until(() => table.enchantments[choice].level > 0, 5000)
    const offers = table.enchantments.map((e) => e.level)
    await table.enchant(choice)
    await sleep(100)
    const it = table.slots[0]
    const res = { offers, item: it && it.name, enchants: it ? it.enchants : [], xp: bot.experience.level }
    await click(0, 0, 1) // take the enchanted item back
    bot.closeWindow(table)
    await sleep(100)
    return res
  },
  async quit () {
    setTimeout(() => process.exit(0), 300)
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
    out({ id: msg.id, ok: false, error: String(e && e.stack ? e.stack : e) })
  }
})
