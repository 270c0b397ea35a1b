// A Mineflayer bot that uses a chest on the embedded server, for tests/chests/test_chests_mineflayer.py.
//
// usage: node chest_bot.js HOST PORT USERNAME X Y Z
// Once it holds a chest, 16 oak logs and 10 cobblestone (the test gives them through the server's test
// hook), it places the chest at X Y Z on the block below, opens it with bot.openContainer, deposits and
// withdraws with Mineflayer's own window code (deposit / withdraw: pickup clicks), closes, reopens, and
// prints one JSON line with what it saw: {"event": "done", ...} (or {"event": "error", ...}).
'use strict'
const path = require('path')
const nm = path.join(__dirname, '..', '..', '..', 'node_modules')
const mineflayer = require(path.join(nm, 'mineflayer'))
const { Vec3 } = require(path.join(nm, 'vec3'))

const [host, port, username, x, y, z] = process.argv.slice(2)
const target = new Vec3(Number(x), Number(y), Number(z))
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.19.2', auth: 'offline' })

const lids = []
bot.on('chestLidMove', (block, isOpen) => lids.push([block.position.x, block.position.y, block.position.z, isOpen]))
bot.on('error', (e) => out({ event: 'error', error: String(e) }))
bot.on('kicked', (reason) => { out({ event: 'error', error: 'kicked: ' + String(reason) }); process.exit(1) })

const count = (name) => bot.inventory.items().filter((it) => it.name === name).reduce((a, it) => a + it.count, 0)
const chestItems = (w) => w.containerItems().map((it) => [it.slot, it.name, it.count])

async function until (pred, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (pred()) return true
    await sleep(50)
  }
  return pred()
}

async function run () {
  await bot.waitForChunksToLoad()
  out({ event: 'ready' })
  if (!await until(() => count('chest') >= 1 && count('oak_log') >= 16 && count('cobblestone') >= 10, 15000)) {
    throw new Error('items never arrived: ' + JSON.stringify(bot.inventory.items().map((i) => [i.name, i.count])))
  }
  const items = bot.registry.itemsByName
  await bot.equip(items.chest.id, 'hand')
  await bot.placeBlock(bot.blockAt(target.offset(0, -1, 0)), new Vec3(0, 1, 0))
  const placed = bot.blockAt(target).name

  const chest = await bot.openContainer(bot.blockAt(target))
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
  out({ event: 'done', placed, opened, afterDeposit, afterWithdraw, carried, afterClose, reopened, lids })
  bot.quit()
}

bot.once('spawn', () => {
  run().catch((e) => { out({ event: 'error', error: String(e && e.stack ? e.stack : e) }); process.exit(1) })
})
