// flying-squid 1.12.0 launcher for MirrorCraft's body tests and benchmark (an independent 1.19/1.19.2 server).
//
// Usage: node squid_server.js '{"port":0,"version":"1.19.2","generation":"superflat","viewDistance":4,"timeoutS":120}'
// Prints JSON lines on stdout: {"event":"listening","port":N} then one reply per command.
// Reads JSON-line commands on stdin (see docs/body.md): blocks, setBlock, give, player, stop.
// Exits on stdin EOF or after timeoutS seconds (hard timeout so a failed test never leaves a server behind).
'use strict'
const path = require('path')
const readline = require('readline')
const root = path.resolve(__dirname, '..', '..', 'node_modules')
const mcServer = require(path.join(root, 'flying-squid'))
const { Vec3 } = require(path.join(root, 'vec3'))

const opts = JSON.parse(process.argv[2] || '{}')
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const generation = opts.generation === 'diamond_square'
  ? { name: 'diamond_square', options: { worldHeight: 80, seed: opts.seed || 1234 } }
  : { name: 'superflat', options: { seed: 1 } }

const serv = mcServer.createMCServer({
  port: opts.port || 0,
  host: '127.0.0.1',
  version: opts.version || '1.19.2',
  'online-mode': false,
  logging: false,
  gameMode: opts.gameMode ?? 0,
  difficulty: 0,
  'max-players': 10,
  kickTimeout: 30000,
  generation,
  'view-distance': opts.viewDistance || 4,
  'player-list-text': { header: { text: 'squid' }, footer: { text: 'test' } },
  'everybody-op': true,
  'max-entities': 100,
  worldFolder: undefined,
  plugins: {}
})
serv.on('error', (err) => out({ event: 'error', error: String(err && err.stack ? err.stack : err) }))
serv._server.on('listening', () => out({ event: 'listening', port: serv._server.socketServer.address().port }))
if (opts.debug) {
  serv.on('newPlayer', (p) => p._client.on('packet', (data, meta) => {
    if (!['position', 'position_look', 'look', 'flying', 'keep_alive'].includes(meta.name)) out({ event: 'packet', name: meta.name, data })
  }))
}
const hard = setTimeout(() => { out({ event: 'timeout' }); process.exit(3) }, (opts.timeoutS || 120) * 1000)

function findPlayer (name) {
  const p = serv.players.find((pl) => pl.username === name)
  if (!p) throw new Error(`no player named ${name}`)
  return p
}

async function handle (cmd) {
  const Item = require(path.join(root, 'prismarine-item'))(serv.registry)
  switch (cmd.op) {
    case 'blocks': {
      const states = []
      for (const [x, y, z] of cmd.positions) states.push(await serv.overworld.getBlockStateId(new Vec3(x, y, z)))
      return { states }
    }
    case 'setBlock': {
      const [x, y, z] = cmd.pos
      await serv.setBlock(serv.overworld, new Vec3(x, y, z), cmd.state)
      return {}
    }
    case 'give': {
      const p = findPlayer(cmd.player)
      const info = serv.registry.itemsByName[cmd.item]
      if (!info) throw new Error(`unknown item ${cmd.item}`)
      p.inventory.updateSlot(cmd.slot, new Item(info.id, cmd.count || 1))
      return {}
    }
    case 'player': {
      const p = findPlayer(cmd.player)
      const slots = p.inventory.slots.map((s, i) => (s ? { slot: i, name: s.name, count: s.count } : null))
        .filter((s) => s !== null)
      return { position: [p.position.x, p.position.y, p.position.z], onGround: p.onGround, slots, gameMode: p.gameMode }
    }
    case 'stop':
      clearTimeout(hard)
      setTimeout(() => process.exit(0), 50)
      return {}
    default:
      throw new Error(`unknown op ${cmd.op}`)
  }
}

const rl = readline.createInterface({ input: process.stdin })
rl.on('line', async (line) => {
  let cmd
  try { cmd = JSON.parse(line) } catch (err) { out({ event: 'error', error: `bad json: ${line}` }); return }
  try {
    out({ id: cmd.id, ok: true, ...(await handle(cmd)) })
  } catch (err) {
    out({ id: cmd.id, ok: false, error: String(err && err.message ? err.message : err) })
  }
})
rl.on('close', () => process.exit(0))
