"""The whole control plane against a user's vanilla 1.19.2 jar (marker ``real_server``; not run by default).

Run with ``MIRRORCRAFT_SERVER_JAR=/path/to/server-1.19.2.jar MIRRORCRAFT_ACCEPT_EULA=1 python -m pytest
tests/harness -m real_server``: setting ``MIRRORCRAFT_ACCEPT_EULA=1`` states that you accept the Minecraft
EULA (https://aka.ms/MinecraftEULA). Needs Java 17+ and node. The test prepares a server folder from the
sandbox world, waits for ``Done (`` and RCON, connects a Mineflayer client, applies the benchmark controls
over RCON, checks the client sees them, checks the milestone query false/true around an ``advancement
grant``, and compares a few reply texts with what the executor produces for the same commands.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_twisted
from support.control_lang import L, here
from support.nodebot import BotSpawner
from twisted.internet import reactor

from mirrorcraft.contracts.episodes import Controls
from mirrorcraft.harness.control import RconServerControl
from mirrorcraft.harness.rcon import connect_rcon
from mirrorcraft.harness.vanilla import VanillaServer, VanillaServerConfig, prepare_server_dir

pytestmark = pytest.mark.real_server


@pytest.fixture(scope="module")
def vanilla(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    jar = os.environ.get("MIRRORCRAFT_SERVER_JAR")
    if not jar or os.environ.get("MIRRORCRAFT_ACCEPT_EULA") != "1":
        pytest.skip("set MIRRORCRAFT_SERVER_JAR and MIRRORCRAFT_ACCEPT_EULA=1 to run against a vanilla jar")
    base = tmp_path_factory.mktemp("vanilla")
    cfg = prepare_server_dir(  # copies the save into the server folder
        VanillaServerConfig(jar=Path(jar), server_dir=base / "server", accept_eula=True), sandbox_template
    )
    srv = VanillaServer(cfg)
    srv.start()
    try:
        srv.wait_ready(timeout=300)
        yield srv
    finally:
        srv.stop()


@pytest_twisted.ensureDeferred
async def test_controls_and_milestones_on_vanilla(vanilla: VanillaServer) -> None:
    cfg = vanilla.config
    bot = BotSpawner().start("agent", cfg.port)
    try:
        await bot.event("ready", timeout=120)
        control = RconServerControl(
            lambda: connect_rcon(reactor, "127.0.0.1", cfg.rcon_port, cfg.rcon_password), player="agent"
        )
        assert await control.apply_controls(Controls()) == Controls(deterministic=False)
        state = await bot.cmd("state")
        assert state["level"] == 100 and state["difficulty"] == "peaceful"
        assert {int(k): v["amplifier"] for k, v in state["effects"].items()} == {3: 1, 1: 0, 11: 0, 5: 0}
        assert state["timeOfDay"] % 24000 == 6000
        assert await control.has_advancement("minecraft:story/mine_stone") is False
        granted = await control.command("advancement grant agent only minecraft:story/mine_stone")
        assert granted == L("commands.advancement.grant.one.to.one.success", "[Stone Age]", "agent")
        assert await control.has_advancement("minecraft:story/mine_stone") is True
        bad = "give agent notanitem"
        assert await control.command(bad) == L("argument.item.id.invalid", "minecraft:notanitem") + here(
            bad, 11
        )
        await bot.cmd("quit")
    finally:
        if not bot.ended.called:
            bot.transport.signalProcess("KILL")
