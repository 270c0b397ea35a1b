// The one Mineflayer 4.25.0 test client: a bot remote-controlled over stdin/stdout with JSON lines.
//
// usage: node driver.js HOST PORT USERNAME [VERSION=1.19.2|auto] [VIEW_DISTANCE]
// stdout: events {"event": "spawn"|"ready"|"message"|"title"|"death"|"respawn"|"kicked"|"end"|"error", ...}
//         and one reply {"id": N, "ok": bool, ...} per command; stdin: {"id": N, "cmd": "<command>", ...}.
// The bot never decides anything itself: the Python tests (tests/support/nodebot.py) drive it and check the
// server's view. Commands are grouped by feature below (world, movement, digging and placing, inventory,
// crafting, furnaces, chests, enchanting, windows by raw clicks, entities and players, teams and scoreboards,
// chat and commands, connections, client state).
//
// Mineflayer 4.25.0 runs on its own release's minecraft-data (3.83.1) and minecraft-protocol (1.54.0),
// pinned in tests/node/package.json (`npm ci --prefix tests/node`): on the repository's minecraft-data
// 3.119.0 it mis-parses 1.19.2 player_info and game-mode changes, so bot.players and bot.game.gameMode
// would not work against any server (vanilla included). The game data MirrorCraft generates still comes from
// the root's 3.119.0.
//
// Everything goes through Mineflayer's public API (bot.craft with bot.recipesFor, bot.openFurnace,
// bot.openContainer, bot.openEnchantmentTable, bot.consume, bot.tabComplete, bot.addChatPattern,
// bot.players, bot.activateBlock, bot.activateEntity, bot.teams, bot.scoreboards...), except: what a vanilla client would not do, marked "cheat" (raw packets a hostile client
// sends); window clicks by number (`click`, `put`, `shift`, `craft_clicks`) for tests about the click
// protocol itself and for a datapack's recipes (bot.craft's recipes are static client data and cannot know
// a Mirror world's rules); and packet taps for what Mineflayer keeps no state of (advancements, abilities,
// effect flags, the tick-rate channel, the packets received).
'use strict'
const path = require('path')
const readline = require('readline')
const nm = path.join(__dirname, 'node_modules') // tests/node/package.json (not the root's)
const mineflayer = require(path.join(nm, 'mineflayer'))
const mc = require(path.join(nm, 'minecraft-protocol'))
const { Vec3 } = require(path.join(nm, 'vec3'))

const [host, port, username, versionArg, viewArg] = process.argv.slice(2)
const version = versionArg === 'auto' ? false : (versionArg || '1.19.2') // auto: ping, then pick
const options = { host, port: Number(port), username, version, auth: 'offline' }
if (viewArg) options.viewDistance = viewArg
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot(options)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---- packet taps (what Mineflayer keeps no state of) ------------------------------------------------------
const seen = { advancements: {}, advPackets: 0, tickRate: null, abilities: null, packets: {} }
const effects = {} // effect id -> {amplifier, duration, flags} as received (Mineflayer drops the flags)
const lids = [] // chest lid moves [x, y, z, open] (Mineflayer's chestLidMove event)
const dead = new Set() // entity ids Mineflayer saw die (entityDead)
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
client.on('entity_effect', (p) => {
  if (bot.entity && p.entityId === bot.entity.id) effects[p.effectId] = { amplifier: p.amplifier, duration: p.duration, flags: p.hideParticles }
})
client.on('remove_entity_effect', (p) => { if (bot.entity && p.entityId === bot.entity.id) delete effects[p.effectId] })
client.on('abilities', (p) => { seen.abilities = p.flags })
const partners = [] // double chests: [right half, left half] as Mineflayer pairs them on a lid move
bot.on('chestLidMove', (block, isOpen, block2) => {
  lids.push([block.position.x, block.position.y, block.position.z, isOpen])
  if (block2) partners.push([[block.position.x, block.position.y, block.position.z], [block2.position.x, block2.position.y, block2.position.z]])
})
bot.on('entityDead', (entity) => dead.add(entity.id))
const scoreEvents = [] // the teams and scoreboard plugins' events, in order
for (const ev of ['teamCreated', 'teamRemoved', 'teamUpdated', 'teamMemberAdded', 'teamMemberRemoved']) {
  bot.on(ev, (t) => scoreEvents.push([ev, t ? t.team : null]))
}
bot.on('scoreboardCreated', (sb) => scoreEvents.push(['scoreboardCreated', sb.name]))
bot.on('scoreboardPosition', (position, sb) => scoreEvents.push(['scoreboardPosition', position, sb.name]))
bot.on('scoreUpdated', (sb, item) => scoreEvents.push(['scoreUpdated', sb.name, item.name, item.value]))

bot.on('messagestr', (text, position, jsonMsg) => out({ event: 'message', text, position, json: jsonMsg && jsonMsg.json }))
bot.on('title', (text, type) => out({ event: 'title', text: String(text), type }))
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
  async block ({ x, y, z }) {
    const b = bot.blockAt(new Vec3(x, y, z))
    return { name: b ? b.name : null, props: b ? b.getProperties() : null }
  },
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

  async activate_block ({ x, y, z, face }) { // bot.activateBlock: use the held item on a block (plant, harvest, eat cake)
    await bot.activateBlock(bot.blockAt(new Vec3(x, y, z)), face ? new Vec3(...face) : undefined)
    await sleep(150)
    return { block: blockName(x, y, z), held: bot.heldItem && [bot.heldItem.name, bot.heldItem.count] }
  },
  async wait_state ({ x, y, z, name, prop, value, ms }) { // a block state property (crop age) reaching a value
    const ok = await until(() => {
      const b = bot.blockAt(new Vec3(x, y, z))
      return b && b.name === name && String(b.getProperties()[prop]) === String(value)
    }, ms || 10000)
    const b = bot.blockAt(new Vec3(x, y, z))
    return { reached: ok, name: b && b.name, props: b ? b.getProperties() : null }
  },

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
  async hotbar ({ slot }) { // bot.setQuickBarSlot: the held-item change the server must follow
    bot.setQuickBarSlot(slot)
    await sleep(200)
    return { held: bot.quickBarSlot, item: bot.heldItem && bot.heldItem.name }
  },
  async consume ({ name }) { // bot.consume: eat or drink the held item until the server says it is done
    if (name) await commands.equip({ name })
    const item = bot.heldItem.name
    const before = { food: bot.food, count: count(item) }
    await bot.consume()
    await sleep(200)
    const fx = Object.values(bot.entity.effects).map((e) => [e.id, e.amplifier])
    return { item, before, food: bot.food, count: count(item), effects: fx }
  },
  async toss ({ name, n }) {
    const it = bot.inventory.items().find((i) => i.name === name)
    if (!it) throw new Error('no ' + name + ' in inventory')
    await bot.toss(it.type, null, n)
    return { slots: slotsOf(bot.inventory) }
  },
  async creative_set ({ slot, name, count: n }) {
    const Item = require(path.join(nm, 'prismarine-item'))(bot.registry)
    await bot.creative.setInventorySlot(slot, name ? new Item(bot.registry.itemsByName[name].id, n) : null)
    return { slots: slotsOf(bot.inventory) }
  },

  // ---- crafting (bot.recipesFor + bot.craft: Mineflayer's own static recipes) ---------------------------
  // `watch`: also return the item's count after every inventory slot update until 500 ms after the craft
  // (a server that resyncs the whole window where vanilla sends single slots makes it dip back).
  async craft ({ item, times, table, watch }) {
    const id = bot.registry.itemsByName[item].id
    const tableBlock = table ? bot.blockAt(new Vec3(...table)) : null
    const recipes = bot.recipesFor(id, null, 1, tableBlock)
    if (!recipes.length) throw new Error('bot.recipesFor found no recipe for ' + item + ' with ' + JSON.stringify(slotsOf(bot.inventory)))
    const before = count(item)
    const expected = recipes[0].result.count * (times || 1)
    const history = []
    const onUpdate = () => history.push(count(item))
    if (watch) bot.inventory.on('updateSlot', onUpdate)
    try {
      await bot.craft(recipes[0], times || 1, tableBlock)
      await until(() => count(item) >= before + expected, 3000) // the last take's slot update may lag
      if (watch) await sleep(500)
    } finally {
      bot.inventory.removeListener('updateSlot', onUpdate)
    }
    return { recipes: recipes.length, made: count(item) - before, count: count(item), slots: slotsOf(bot.inventory), history }
  },

  // ---- furnaces (bot.openFurnace) ------------------------------------------------------------------------
  // Fuel, then input, then wait until the output holds `take` items (watching furnace.progress), take them.
  async smelt ({ x, y, z, input, n, fuel, fuelN, take, ms }) {
    const furnace = await bot.openFurnace(bot.blockAt(new Vec3(x, y, z)))
    const items = bot.registry.itemsByName
    const watched = { progress: [], totalProgress: [], fuel: [] }
    furnace.on('update', () => {
      watched.progress.push(furnace.progress)
      watched.totalProgress.push(furnace.totalProgress)
      watched.fuel.push(furnace.fuel)
    })
    await furnace.putFuel(items[fuel].id, null, fuelN || 1)
    await furnace.putInput(items[input].id, null, n)
    const done = await until(() => furnace.outputItem() && furnace.outputItem().count >= (take || 1), ms || 20000)
    const progressed = watched.progress.some((v) => v > 0 && v < 1)
    const output = furnace.outputItem()
    let took = null
    if (done) {
      const it = await furnace.takeOutput()
      took = [it.name, it.count]
    }
    const left = furnace.inputItem()
    furnace.close()
    await sleep(200)
    return { type: furnace.type, done, took, progressed, totalProgress: furnace.totalProgress, output: output && [output.name, output.count], input: left && [left.name, left.count], watched: { progress: watched.progress.slice(-3), totals: [...new Set(watched.totalProgress)] } }
  },

  // ---- chests (bot.openContainer) -----------------------------------------------------------------------
  async chest ({ x, y, z, deposit, withdraw }) {
    const items = bot.registry.itemsByName
    const chest = await bot.openContainer(bot.blockAt(new Vec3(x, y, z)))
    const chestItems = () => chest.containerItems().map((it) => [it.slot, it.name, it.count])
    const opened = { type: chest.type, title: chest.title, slots: chest.slots.length, inventoryStart: chest.inventoryStart, items: chestItems() }
    for (const [name, n] of deposit || []) await chest.deposit(items[name].id, null, n)
    await sleep(200)
    const afterDeposit = chestItems()
    for (const [name, n] of withdraw || []) await chest.withdraw(items[name].id, null, n)
    await sleep(200)
    const afterWithdraw = chestItems()
    chest.close()
    await sleep(300)
    return { opened, afterDeposit, afterWithdraw, lids, partners }
  },
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

  // ---- enchanting (bot.openEnchantmentTable) ------------------------------------------------------------
  async enchant ({ x, y, z, item, choice, takeBack }) {
    const table = await bot.openEnchantmentTable(bot.blockAt(new Vec3(x, y, z)))
    await table.putTargetItem(table.items().find((it) => it.name === item))
    await table.putLapis(table.items().find((it) => it.name === 'lapis_lazuli'))
    const offered = await until(() => table.enchantments.every((e) => e.level >= 0) && table.enchantments[choice].level > 0, 5000)
    if (!offered) throw new Error('no enchantment offers: ' + JSON.stringify({ slots: slotsOf(table), offers: table.enchantments, xp: bot.experience.level }))
    const offers = table.enchantments.map((e) => e.level)
    const enchanted = await table.enchant(choice)
    await sleep(100)
    const it = table.slots[0]
    const res = {
      offers, item: it && it.name, enchants: it ? it.enchants : [], lapis: table.slots[1] && table.slots[1].count,
      xp: bot.experience.level, enchantedName: enchanted && enchanted.name
    }
    if (takeBack) await table.takeTargetItem()
    bot.closeWindow(table)
    await sleep(100)
    return res
  },

  // ---- windows by raw clicks (tests of the click protocol; a datapack's recipes) ---------------------------
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
  async craft_clicks ({ grid, shift }) {
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

  // ---- entities and players -------------------------------------------------------------------------------
  async cows () {
    return { cows: Object.values(bot.entities).filter((e) => e.name === 'cow').map((e) => ({ id: e.id, pos: e.position })) }
  },
  async hit ({ entity }) {
    const e = bot.entities[entity]
    if (!e) return { hit: false, dead: dead.has(entity) }
    bot.attack(e)
    await sleep(50)
    return { hit: true, dead: dead.has(entity) }
  },
  async entities ({ name }) { // bot.entities of one type
    return { entities: Object.values(bot.entities).filter((e) => e.name === name).map((e) => ({ id: e.id, pos: e.position })) }
  },
  async activate_entity ({ entity }) { // bot.activateEntity: use the held item on an entity (milk a cow)
    const e = bot.entities[entity]
    if (!e) throw new Error('no entity ' + entity)
    const before = bot.heldItem && bot.heldItem.name
    await bot.activateEntity(e)
    // the server answers with a set_slot; under load it can take longer than a fixed pause: wait for the change
    for (let waited = 0; waited < 3000 && (bot.heldItem && bot.heldItem.name) === before; waited += 50) await sleep(50)
    return { held: bot.heldItem && [bot.heldItem.name, bot.heldItem.count] }
  },
  async teams () { // bot.teams / bot.teamMap (the teams plugin) and bot.scoreboards / bot.scoreboard (the scoreboard plugin)
    const teams = {}
    for (const [name, t] of Object.entries(bot.teams)) {
      teams[name] = { name: t.name.toString(), members: t.members, color: t.color, friendlyFire: t.friendlyFire, prefix: t.prefix.toString() }
    }
    const teamMap = {}
    for (const [member, t] of Object.entries(bot.teamMap)) teamMap[member] = t.team
    const scoreboards = {}
    for (const [name, sb] of Object.entries(bot.scoreboards)) scoreboards[name] = { title: sb.title, items: sb.items.map((i) => [i.name, i.value]) }
    const sidebar = bot.scoreboard.sidebar
    return { teams, teamMap, scoreboards, sidebar: sidebar ? sidebar.name : null, events: scoreEvents }
  },
  async seen ({ username: who }) { // bot.players: the player list and, when in range, the player's entity
    const p = bot.players[who]
    const ent = p && p.entity
    return { pos: ent ? ent.position : null, listed: Boolean(p), spawned: Boolean(ent) }
  },
  async players () {
    const res = {}
    for (const [name, p] of Object.entries(bot.players)) res[name] = { uuid: p.uuid, gamemode: p.gamemode, entity: Boolean(p.entity), pos: p.entity ? p.entity.position : null }
    return { players: res }
  },

  // ---- chat and commands ---------------------------------------------------------------------------------
  async chat ({ text }) { bot.chat(text); return {} },
  async whisper ({ to, text }) { bot.whisper(to, text); return {} },
  async wait_mode ({ mode, ms }) {
    const reached = await until(() => bot.game.gameMode === mode, ms || 5000)
    return { reached, gameMode: bot.game.gameMode }
  },
  async pattern ({ name, regex, flags }) { // bot.addChatPattern: `chat:<name>` events with the groups
    bot.addChatPattern(name, new RegExp(regex, flags || ''), { repeat: true, parse: true })
    bot.on('chat:' + name, (matches) => out({ event: 'pattern', name, matches }))
    return {}
  },
  async await_message ({ regex, flags, ms }) { // bot.awaitMessage: resolves with the matching message
    let timer
    const timeout = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error('no message matching ' + regex)), ms || 5000) })
    const text = await Promise.race([bot.awaitMessage(new RegExp(regex, flags || '')), timeout])
    clearTimeout(timer)
    return { text }
  },
  async tab_complete ({ text, ms }) { return { matches: await bot.tabComplete(text, false, false, ms || 5000) } },

  // ---- connections: a ping and a second login, with the library Mineflayer uses --------------------------
  async ping ({ version: v }) { // minecraft-protocol's ping; no version: its newest (1.21.1, protocol 767)
    return { status: await mc.ping({ host, port: Number(port), version: v }) }
  },
  async login ({ name, version: v, ms }) { // another Mineflayer bot; version false: pick it from a ping
    const other = mineflayer.createBot({ host, port: Number(port), username: name, version: v, auth: 'offline' })
    const result = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ outcome: 'timeout' }), ms || 15000)
      other.once('spawn', () => { clearTimeout(timer); resolve({ outcome: 'spawn', version: other.version, protocol: other.protocolVersion, gameMode: other.game.gameMode, pos: other.entity.position }) })
      other.once('kicked', (reason) => { clearTimeout(timer); resolve({ outcome: 'kicked', reason: String(reason) }) })
      other.once('error', (e) => { clearTimeout(timer); resolve({ outcome: 'error', error: String(e) }) })
    })
    if (result.outcome === 'spawn') { await sleep(300); other.quit(); await sleep(300) }
    return result
  },

  // ---- client state --------------------------------------------------------------------------------------
  async state () {
    const w = win()
    const t = bot.time
    return {
      slots: slotsOf(w),
      window: w.type,
      windowId: w.id,
      xp: bot.experience.level,
      level: bot.experience.level,
      points: bot.experience.points,
      effects,
      apiEffects: Object.values(bot.entity.effects).map((e) => [e.id, e.amplifier]),
      time: { timeOfDay: t.timeOfDay, doDaylightCycle: t.doDaylightCycle, age: t.age },
      timeOfDay: t.timeOfDay === null ? null : (t.doDaylightCycle ? t.timeOfDay : -t.timeOfDay), // update_time's sign
      difficulty: bot.game.difficulty,
      gameMode: bot.game.gameMode,
      abilities: seen.abilities,
      rain: bot.rainState,
      thunder: bot.thunderState,
      health: bot.health,
      food: bot.food,
      held: bot.quickBarSlot,
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
