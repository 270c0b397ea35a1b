// Mineflayer's client-side dig time (prismarine-block digTime) for a batch of cases, as JSON lines.
// stdin: [{"block": "stone", "item": "wooden_pickaxe"|null, "inWater": bool, "notOnGround": bool,
//          "haste": level, "fatigue": level, "efficiency": level}, ...]  stdout: [ms or null (Infinity)]
'use strict'
const path = require('path')
const nm = path.join(__dirname, '..', '..', 'node_modules')
const registry = require(path.join(nm, 'prismarine-registry'))('1.19.2')
const Block = require(path.join(nm, 'prismarine-block'))(registry)
let input = ''
process.stdin.on('data', (d) => { input += d })
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((c) => {
    const b = Block.fromStateId(registry.blocksByName[c.block].defaultState, 0)
    const item = c.item ? registry.itemsByName[c.item].id : null
    const effects = {}
    if (c.haste) effects[registry.effectsByName.Haste.id] = { amplifier: c.haste - 1 }
    if (c.fatigue) effects[registry.effectsByName.MiningFatigue.id] = { amplifier: c.fatigue - 1 }
    const ench = c.efficiency ? [{ name: 'efficiency', lvl: c.efficiency }] : []
    const t = b.digTime(item, false, c.inWater, c.notOnGround, ench, effects)
    return Number.isFinite(t) ? t : null
  })
  process.stdout.write(JSON.stringify(out) + '\n')
})
