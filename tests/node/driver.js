// The one Mineflayer 4.25.0 test client: a bot remote-controlled over stdin/stdout with JSON lines.
//
// usage: node driver.js HOST PORT USERNAME [VERSION=1.19.2] [VIEW_DISTANCE]
// stdout: events {"event": "spawn"|"ready"|"message"|"death"|"respawn"|"kicked"|"end"|"error", ...} and one
//         reply {"id": N, "ok": bool, ...} per command; stdin: {"id": N, "cmd": "<command>", ...}.
// The bot never decides anything itself: the Python tests (tests/nodebot.py) drive it and check the server's
// view. Commands are grouped by feature below (world, movement, digging and placing, inventory, windows and
// crafting, furnaces, chests, enchanting, entities, chat and commands, client state).
//
// What a vanilla client would not do is marked "cheat" (raw packets a hostile client sends); everything
// else goes through Mineflayer's public API. Crafting here uses window clicks (bot.clickWindow), because
// bot.craft's recipes are static client data and could not show a datapack's recipe.
'use strict'
const path = require('path')
const readline = require('readline')
const nm = path.join(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(nm, 'mineflayer'))
const { Vec3 } = require(path.join(nm, 'vec3'))

const [host, port, username, versionArg, viewArg] = process.argv.slice(2)
const version = versionArg || '1.19.2'
const options = { host, port: Number(port), username, version, auth: 'offline' }
if (viewArg) options.viewDistance = viewArg
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot(options)
const Item = require(path.join(nm, 'prismarine-item'))(version)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---- what the client received (raw packets, where Mineflayer 4.25.0 on 1.19.2 loses them) ----------------
// Mineflayer 4.25.0 cannot list other players on 1.19.x with minecraft-data 3.119 (player_info's action
// arrives as a string, so bot.players stays empty) and misses game-mode changes (it compares the reason with
// 3): both are tracked from the decoded packets, which still checks what the client receives.
const seen = {
  advancements: {}, advPackets: 0, tickRate: null, statuses: [], difficulty: null, timeOfDay: null,
  abilities: null, rain: null, thunder: null, gameMode: null, packets: {}
}
const effects = {} // effect id -> {amplifier, duration, flags} as received
const others = { names: {}, entities: {} } // uuid -> name, entityId -> {uuid, pos}
const lids = [] // chest lid moves [x, y, z, open]
const client = bot._client
client.on('packet', (data, meta) => { seen.packets[meta.name] = (seen.packets[meta.name] || 0) + 1 })
client.on('advancements', (p) => {
  seen.advPackets++
  if (p.reset) seen.advancements = {}
  for (const m of p.progressMapping) {
    const got = m.value.filter((c) => c.criterionProgress !== undefined && c.criterionProgress !== null)
    seen.advancements[m.key] = got.map((c) => c.criterionIdentifier)
  }
})
client.on('custom_payload', (p) => {
  if (p.channel === 'mirrorcraft:tick_rate') seen.tickRate = Buffer.from(p.data).toString('ascii')
})
client.on('entity_status', (p) => seen.statuses.push([p.entityId, p.entityStatus]))
client.on('entity_effect', (p) => {
  if (bot.entity && p.entityId === bot.entity.id) effects[p.effectId] = { amplifier: p.amplifier, duration: p.duration, flags: p.hideParticles }
})
client.on('remove_entity_effect', (p) => { if (bot.entity && p.entityId === bot.entity.id) delete effects[p.effectId] })
client.on('difficulty', (p) => { seen.difficulty = p.difficulty })
client.on('update_time', (p) => { seen.timeOfDay = Number(p.time) })
client.on('abilities', (p) => { seen.abilities = p.flags })
client.on('game_state_change', (p) => {
  // minecraft-data 3.119 maps the reason to a name; older tables give the number
  if (p.reason === 7 || p.reason === 'rain_level_change') seen.rain = p.gameMode
  if (p.reason === 8 || p.reason === 'thunder_level_change') seen.thunder = p.gameMode
  if (p.reason === 3 || p.reason === 'change_game_mode') seen.gameMode = ['survival', 'creative', 'adventure', 'spectator'][p.gameMode]
})
client.on('player_info', (p) => {
  for (const d of p.data) {
    if (p.action === 'add_player' || p.action === 0) others.names[d.uuid || d.UUID] = d.name
    if (p.action === 'remove_player' || p.action === 4) delete others.names[d.uuid || d.UUID]
  }
})
client.on('named_entity_spawn', (p) => { others.entities[p.entityId] = { uuid: p.playerUUID, pos: { x: p.x, y: p.y, z: p.z } } })
client.on('entity_teleport', (p) => { const e = others.entities[p.entityId]; if (e) e.pos = { x: p.x, y: p.y, z: p.z } })
client.on('rel_entity_move', (p) => {
  const e = others.entities[p.entityId]
  if (e) { e.pos.x += p.dX / 4096; e.pos.y += p.dY / 4096; e.pos.z += p.dZ / 4096 }
})
client.on('entity_destroy', (p) => { for (const id of p.entityIds) delete others.entities[id] })
bot.on('chestLidMove', (block, isOpen) => lids.push([block.position.x, block.position.y, block.position.z, isOpen]))

bot.on('messagestr', (text) => out({ event: 'message', text }))
bot.on('death', () => out({ event: 'death' }))
bot.on('respawn', () => out({ event: 'respawn' }))
bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.on('kicked', (reason) => out({ event: 'kicked', reason: String(reason) }))
bot.on('end', (reason) => { out({ event: 'end', reason: String(reason) }); process.exit(0) })
bot.once('spawn', async () => {
  out({ event: 'spawn', pos: bot.entity.position })
  await bot.waitForChunksToLoad()
  out({ event: 'ready', pos: bot.entity.position, version: bot.version, protocol: bot.protocolVersion })
})

// ---- helpers ----------------------------------------------------------------------------------------------
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
function count (name) { // main inventory, hotbar and off hand
  const off = bot.inventory.slots[45]
  return bot.inventory.items().filter((it) => it.name === name).reduce((a, it) => a + it.count, 0) +
    (off && off.name === name ? off.count : 0)
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
  // ---- world -------------------------------------------------------------------------------------------
  async block ({ x, y, z }) { return { name: blockName(x, y, z) } },
  async blocks ({ positions }) { return { names: positions.map(([x, y, z]) => blockName(x, y, z)) } },
  async wait_block ({ x, y, z, name, ms }) {
    const ok = await until(() => blockName(x, y, z) === name, ms || 5000)
    return { ok, reached: ok, name: blockName(x, y, z) }
  },
  async columns () { return { columns: bot.world.getColumns().map((c) => [Number(c.chunkX), Number(c.chunkZ)]) } },

  // ---- movement ----------------------------------------------------------------------------------------
  async position () { return { pos: bot.entity.position, onGround: bot.entity.onGround } },
  async wait_position ({ x, y, z, within, ms }) {
    const ok = await until(() => bot.entity.position.distanceTo(new Vec3(x, y, z)) <= within, ms || 3000)
    return { reached: ok, pos: bot.entity.position }
  },
  async settle ({ ms }) {
    const ok = await until(() => bot.entity.onGround, ms || 3000)
    return { onGround: ok, pos: bot.entity.position }
  },
  async look ({ yaw, pitch }) { await bot.look(yaw, pitch, true); return {} },
  async look_at ({ x, y, z }) { await bot.lookAt(new Vec3(x, y, z), true); return {} },
  async walk ({ control, ms }) {
    bot.setControlState(control, true)
    await sleep(ms)
    bot.setControlState(control, false)
    await until(() => bot.entity.onGround, 2000)
    return { pos: bot.entity.position }
  },
  async raw_move ({ x, y, z }) { // cheat: a position the physics never produced
    const before = bot.entity.position.clone()
    client.write('position', { x, y, z, onGround: true })
    await sleep(500)
    return { before, after: bot.entity.position }
  },

  // ---- digging and placing -----------------------------------------------------------------------------
  async dig ({ x, y, z, name }) {
    if (name) await until(() => blockName(x, y, z) === name, 3000) // a test-hook set_block may be in flight
    const block = bot.blockAt(new Vec3(x, y, z))
    const digTime = bot.digTime(block)
    const t0 = Date.now()
    await bot.dig(block, true)
    return { block: block.name, ms: Date.now() - t0, digTime, after: blockName(x, y, z) }
  },
  async dig_too_fast ({ x, y, z }) { // cheat: start digging and claim it finished at once
    const pos = new Vec3(x, y, z)
    client.write('block_dig', { status: 0, location: pos, face: 1, sequence: 1001 })
    client.write('block_dig', { status: 2, location: pos, face: 1, sequence: 1002 })
    await sleep(500)
    return { after: blockName(x, y, z) }
  },
  async place ({ against, face }) {
    const ref = bot.blockAt(new Vec3(...against))
    await bot.placeBlock(ref, new Vec3(...face))
    return { placed: bot.blockAt(ref.position.plus(new Vec3(...face))).name }
  },

  // ---- inventory ---------------------------------------------------------------------------------------
  async inventory () {
    return { slots: slotsOf(bot.inventory), held: bot.quickBarSlot, items: bot.inventory.items().map((it) => [it.name, it.count]) }
  },
  async wait_item ({ name, atLeast, ms }) {
    const ok = await until(() => count(name) >= atLeast, ms || 5000)
    return { got: ok, count: count(name), slots: slotsOf(bot.inventory) }
  },
  async equip ({ name }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    if (!it) throw new Error('no ' + name + ' in inventory')
    await bot.equip(it, 'hand')
    return { held: bot.heldItem && bot.heldItem.name }
  },
  async toss ({ name, n }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    if (!it) throw new Error('no ' + name + ' in inventory')
    await bot.toss(it.type, null, n)
    return { slots: slotsOf(bot.inventory) }
  },
  async creative_set ({ slot, name, count: n }) {
    await bot.creative.setInventorySlot(slot, name ? new Item(bot.registry.itemsByName[name].id, n) : null)
    return { slots: slotsOf(bot.inventory) }
  },

  // ---- windows and crafting ----------------------------------------------------------------------------
  async click ({ slot, button, mode }) { await bot.clickWindow(slot, button, mode); return { slots: slotsOf(win()) } },
  async open ({ x, y, z }) {
    const w = await bot.openBlock(bot.blockAt(new Vec3(x, y, z)))
    return { type: w.type, windowId: w.id, slots: slotsOf(w) }
  },
  async close () {
    if (bot.currentWindow) bot.closeWindow(bot.currentWindow)
    await sleep(100)
    return { slots: slotsOf(bot.inventory) }
  },
  // Put one item of each named stack into grid slots, then take the result (shift: into the inventory).
  async craft ({ grid, shift }) {
    const w = win()
    for (const [slot, name] of grid) {
      const from = findSlot(w, name)
      await click(from, 0, 0) // pick the stack up
      await click(slot, 1, 0) // right click: one item into the grid slot
      await click(from, 0, 0) // put the rest back
    }
    await until(() => w.slots[0] !== null, 2000)
    const result = w.slots[0] ? [w.slots[0].name, w.slots[0].count] : null
    if (shift) {
      await click(0, 0, 1)
    } else {
      await click(0, 0, 0)
      await click(w.firstEmptyInventorySlot(), 0, 0)
    }
    await sleep(150)
    return { result, slots: slotsOf(w) }
  },
  // Move a stack (or n single items, right clicks) from the inventory part of the window into a slot.
  async put ({ slot, name, n }) {
    const w = win()
    const from = findSlot(w, name)
    await click(from, 0, 0)
    if (n === undefined) {
      await click(slot, 0, 0)
    } else {
      for (let i = 0; i < n; i++) await click(slot, 1, 0)
    }
    if (w.selectedItem) await click(from, 0, 0)
    await sleep(100)
    return { slots: slotsOf(w) }
  },
  async wait_slot ({ slot, name, atLeast, ms }) {
    const w = win()
    const ok = await until(() => w.slots[slot] && w.slots[slot].name === name && w.slots[slot].count >= atLeast, ms || 10000)
    return { ok, reached: ok, slots: slotsOf(w) }
  },
  async shift ({ slot }) { await click(slot, 0, 1); await sleep(150); return { slots: slotsOf(win()) } },

  // ---- chests ------------------------------------------------------------------------------------------
  // Place a held chest at (x, y, z), deposit and withdraw with Mineflayer's own window code, close, reopen.
  async chest_roundtrip ({ x, y, z }) {
    const target = new Vec3(x, y, z)
    const items = bot.registry.itemsByName
    await bot.equip(items.chest.id, 'hand')
    await bot.placeBlock(bot.blockAt(target.offset(0, -1, 0)), new Vec3(0, 1, 0))
    const placed = bot.blockAt(target).name
    const chest = await bot.openContainer(bot.blockAt(target))
    const chestItems = (w) => w.containerItems().map((it) => [it.slot, it.name, it.count])
    const opened = { type: chest.type, title: chest.title, slots: chest.slots.length, inventoryStart: chest.inventoryStart }
    await chest.deposit(items.oak_log.id, null, 16)
    await chest.deposit(items.cobblestone.id, null, 10)
    await sleep(300)
    const afterDeposit = chestItems(chest)
    await chest.withdraw(items.oak_log.id, null, 6)
    await sleep(300)
    const afterWithdraw = chestItems(chest)
    const inWindow = (n) => chest.items().filter((it) => it.name === n).reduce((a, it) => a + it.count, 0)
    const carried = { oak_log: inWindow('oak_log'), cobblestone: inWindow('cobblestone') }
    chest.close()
    await sleep(400)
    const afterClose = { oak_log: count('oak_log'), cobblestone: count('cobblestone') }
    const again = await bot.openContainer(bot.blockAt(target))
    await sleep(300)
    const reopened = chestItems(again)
    again.close()
    await sleep(300)
    return { placed, opened, afterDeposit, afterWithdraw, carried, afterClose, reopened, lids }
  },

  // ---- enchanting --------------------------------------------------------------------------------------
  async enchant ({ x, y, z, item, choice, takeBack }) {
    const table = await bot.openEnchantmentTable(bot.blockAt(new Vec3(x, y, z)))
    await click(findSlot(table, item), 0, 1) // shift-click the item into the table
    await click(findSlot(table, 'lapis_lazuli'), 0, 1)
    await until(() => table.enchantments.every((e) => e.level >= 0) && table.enchantments[choice].level > 0, 5000)
    const offers = table.enchantments.map((e) => e.level)
    const enchanted = await table.enchant(choice)
    await sleep(100)
    const it = table.slots[0]
    const res = {
      offers, item: it && it.name, enchants: it ? it.enchants : [], lapis: table.slots[1] && table.slots[1].count,
      xp: bot.experience.level, enchantedName: enchanted && enchanted.name
    }
    if (takeBack) await click(0, 0, 1) // the enchanted item back into the inventory
    bot.closeWindow(table)
    await sleep(100)
    return res
  },

  // ---- entities ----------------------------------------------------------------------------------------
  async cows () {
    return { cows: Object.values(bot.entities).filter((e) => e.name === 'cow').map((e) => ({ id: e.id, pos: e.position })) }
  },
  async hit ({ entity }) {
    const dead = () => seen.statuses.some(([eid, st]) => eid === entity && st === 3)
    const e = bot.entities[entity]
    if (!e) return { hit: false, dead: dead() }
    bot.attack(e)
    await sleep(50)
    return { hit: true, dead: dead() }
  },
  async seen ({ username: who }) {
    const listed = Object.values(others.names).includes(who)
    const ent = Object.values(others.entities).find((e) => others.names[e.uuid] === who)
    return { pos: ent ? ent.pos : null, listed, spawned: Boolean(ent) }
  },

  // ---- chat and commands -------------------------------------------------------------------------------
  async chat ({ text }) { bot.chat(text); return {} },
  async wait_mode ({ mode, ms }) {
    const reached = await until(() => seen.gameMode === mode, ms || 5000)
    return { reached, gameMode: seen.gameMode }
  },

  // ---- client state ------------------------------------------------------------------------------------
  async state () {
    const w = win()
    return {
      slots: slotsOf(w),
      window: w.type,
      windowId: w.id,
      xp: bot.experience.level,
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
      advancements: seen.advancements,
      packets: seen.packets,
      seen
    }
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
  const fn = commands[msg.cmd]
  if (!fn) { out({ id: msg.id, ok: false, error: 'unknown command ' + msg.cmd }); return }
  try {
    out(Object.assign({ id: msg.id, ok: true }, await fn(msg)))
  } catch (e) {
    out({ id: msg.id, ok: false, error: String(e && e.stack ? e.stack : e) })
  }
})
