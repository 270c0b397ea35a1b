// A Mineflayer bot for the part-2 server tests (crafting windows, furnaces, the enchanting table, cows,
// advancements), remote-controlled over stdin/stdout with JSON lines like tests/node/bot.js.
//
// usage: node bot2.js HOST PORT USERNAME
// stdout: {"event": "ready"|"kicked"|"end"|"error", ...} and one {"id": N, "ok": bool, ...} reply per command.
// Crafting uses raw window clicks (bot.clickWindow), never bot.craft (whose recipes are static client
// data), so what the bot ends up holding is the server's result.
'use strict'
const path = require('path')
const readline = require('readline')
const nm = path.join(__dirname, '..', '..', '..', 'node_modules')
const mineflayer = require(path.join(nm, 'mineflayer'))
const { Vec3 } = require(path.join(nm, 'vec3'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// what the client received, for the checks
const seen = { advancements: {}, tickRate: null, statuses: [], advPackets: 0 }
bot._client.on('advancements', (p) => {
  seen.advPackets++
  if (p.reset) seen.advancements = {}
  for (const m of p.progressMapping) {
    const got = m.value.filter((c) => c.criterionProgress !== undefined && c.criterionProgress !== null)
    seen.advancements[m.key] = got.map((c) => c.criterionIdentifier)
  }
})
bot._client.on('custom_payload', (p) => {
  if (p.channel === 'mirrorcraft:tick_rate') seen.tickRate = Buffer.from(p.data).toString('ascii')
})
bot._client.on('entity_status', (p) => seen.statuses.push([p.entityId, p.entityStatus]))

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

const commands = {
  async state () {
    return { slots: slotsOf(win()), window: win().type, windowId: win().id, xp: bot.experience.level, seen }
  },
  async wait_item ({ name, atLeast, ms }) {
    const ok = await until(() => count(name) >= atLeast, ms || 5000)
    return { got: ok, count: count(name), slots: slotsOf(bot.inventory) }
  },
  async dig ({ x, y, z, name }) {
    // wait until the client knows the block (a test-hook set_block may still be in flight)
    await until(() => { const b = bot.blockAt(new Vec3(x, y, z)); return b && b.name === name }, 3000)
    const block = bot.blockAt(new Vec3(x, y, z))
    await bot.dig(block, true)
    return { block: block.name, after: bot.blockAt(new Vec3(x, y, z)).name }
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
    await until(() => w.slots[w.craftingResultSlot === undefined ? 0 : 0] !== null, 2000)
    const result = w.slots[0] ? [w.slots[0].name, w.slots[0].count] : null
    if (shift) {
      await click(0, 0, 1)
    } else {
      await click(0, 0, 0)
      const empty = w.firstEmptyInventorySlot()
      await click(empty, 0, 0)
    }
    await sleep(150)
    return { result, slots: slotsOf(w) }
  },
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
    return { ok, slots: slotsOf(w) }
  },
  async shift ({ slot }) {
    await click(slot, 0, 1)
    await sleep(150)
    return { slots: slotsOf(win()) }
  },
  async enchant ({ x, y, z, item, choice }) {
    const table = await bot.openEnchantmentTable(bot.blockAt(new Vec3(x, y, z)))
    await click(findSlot(table, item), 0, 1) // shift-click the item into the table
    await click(findSlot(table, 'lapis_lazuli'), 0, 1)
    await until(() => table.enchantments.every((e) => e.level >= 0) && table.enchantments[choice].level > 0, 5000)
    const offers = table.enchantments.map((e) => e.level)
    const enchanted = await table.enchant(choice)
    await sleep(100)
    const it = table.slots[0]
    const res = { offers, item: it && it.name, enchants: it ? it.enchants : [], lapis: table.slots[1] && table.slots[1].count, xp: bot.experience.level }
    bot.closeWindow(table)
    await sleep(100)
    res.enchantedName = enchanted && enchanted.name
    return res
  },
  async cows () {
    return { cows: Object.values(bot.entities).filter((e) => e.name === 'cow').map((e) => ({ id: e.id, pos: e.position })) }
  },
  async hit ({ entity }) {
    const e = bot.entities[entity]
    if (!e) return { hit: false, dead: seen.statuses.some(([eid, st]) => eid === entity && st === 3) }
    bot.attack(e)
    await sleep(50)
    return { hit: true, dead: seen.statuses.some(([eid, st]) => eid === entity && st === 3) }
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
