"""Team-play skills between players: ``give`` and ``chat``.

``give(item, count, player)`` walks up to the named player (within 2 blocks, as ``go_to`` an entity), looks
at them and throws the items, then steps back (the window's throw click, vanilla ``Player.drop``: the stack flies from the
eyes in the look direction, and no one can pick it up for 40 ticks). The report's ``completed`` is how many
left the inventory; its message says how many the other player was seen picking up (the server's
``collect`` packets name the collector), or that it could not be seen in time.

``chat(text, team)`` sends a chat line, or ``/teammsg`` for team chat (vanilla delivers that only to the
sender's team mates). It succeeds when the server echoes the line back to the sender (vanilla and the
embedded server both do: ``chat.type.text`` / ``chat.type.team.sent``); without a team, the server's
refusal (``commands.teammsg.failed.noteam``) is the failure message.
"""

from __future__ import annotations

import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.mcproto_body.chat import ChatLine
from mirrorcraft.skills.navigation import ENTITY_REACH, Target, reach_target
from mirrorcraft.skills.runtime import BaseSkill, Progress, SkillContext, SkillFailed, require_item

#: Horizontal distance from which items are thrown (a throw carries a few blocks; the pickup box is 1 wider).
TOSS_DISTANCE = 3.0
#: Where the throw aims: this far above the receiver's feet (the item flies farther than aimed at the feet).
AIM_HEIGHT = 1.2
#: Blocks the thrower steps back after the throw.
BACK_OFF = 2.5
#: Game ticks to watch for the receiver picking the items up (vanilla pickup delay 40 + flight).
PICKUP_TICKS = 80
#: Game ticks to wait for the server's echo of a chat line.
ECHO_TICKS = 30


def find_player(ctx: SkillContext, name: str) -> Any:
    """The player entity called ``name`` the body sees, else ``None``."""
    ents = ctx.body.entities
    for e in ents.by_id.values():
        if e.type != "minecraft:player" or e.id == ents.self_id:
            continue
        shown = e.name or ents.player_names.get(e.uuid)
        if shown == name:
            return e
    return None


class Give(BaseSkill):
    """Walk to a player and toss them items."""

    name = "give"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        require_item(args.item)
        if args.player == body.config.username:
            raise SkillFailed(FailureReason.OTHER, "cannot give items to yourself")
        have = ctx.inventory().get(args.item, 0)
        if have < 1:
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {args.item} in the inventory")
        count = min(args.count, have, ctx.limits.give_max_count)
        for _ in range(3):
            other = find_player(ctx, args.player)
            if other is None:
                raise SkillFailed(FailureReason.NOT_FOUND, f"player {args.player} is not in sight")
            me = body.movement.position
            if math.hypot(other.position[0] - me[0], other.position[2] - me[2]) <= TOSS_DISTANCE:
                break
            self.check_time(deadline)
            cell = tuple(math.floor(c) for c in other.position)
            await reach_target(
                ctx, Target("entity", cell, ENTITY_REACH, args.player), self.time_left(deadline), progress
            )
        other = find_player(ctx, args.player)
        if other is None:
            raise SkillFailed(FailureReason.NOT_FOUND, f"player {args.player} is not in sight")
        me = body.movement.position
        if math.hypot(other.position[0] - me[0], other.position[2] - me[2]) > TOSS_DISTANCE + 1.0:
            raise SkillFailed(FailureReason.UNREACHABLE, f"cannot get near {args.player}: {ctx.last_way_out}")
        picked: list[int] = []
        item_id = None
        from mirrorcraft.gamedata import item as item_info

        item_id = item_info(args.item).id

        def listener(ev: Any) -> None:
            if ev.collector_id == other.id and (ev.item is None or ev.item.item_id == item_id):
                picked.append(ev.count)

        body.entities.on_collect(listener)
        try:
            x, y, z = other.position
            tossed = await body.using.toss(args.item, count, towards=(x, y + AIM_HEIGHT, z))
            if tossed < 1:
                raise SkillFailed(FailureReason.OTHER, f"the server kept the {args.item}")
            progress.completed = tossed
            # Step back while the pickup delay runs (40 ticks): both players' pickup boxes (1 block wider than
            # the player) may reach the items, and the thrower, nearer, would take them back.
            me = body.movement.position
            dx, dz = me[0] - x, me[2] - z
            norm = math.hypot(dx, dz) or 1.0
            back = (me[0] + BACK_OFF * dx / norm, me[1], me[2] + BACK_OFF * dz / norm)
            await body.walk_straight(back, tolerance=0.4, timeout=max(0.05, 30 / ctx.tick_rate))
            end = min(deadline, ctx.now() + PICKUP_TICKS / ctx.tick_rate)
            while ctx.now() < end and sum(picked) < tossed:
                await ctx.sleep_ticks(2)
        finally:
            if listener in body.entities._collect_listeners:
                body.entities._collect_listeners.remove(listener)
        got = sum(picked)
        seen = f"{args.player} picked up {got}" if got else f"{args.player} was not seen picking them up"
        progress.message = f"tossed {tossed} {args.item} to {args.player}; {seen}"


class Chat(BaseSkill):
    """Say something in chat, to everyone or to the own team."""

    name = "chat"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        chat = ctx.body.chat
        me = ctx.body.config.username
        got: list[ChatLine] = []
        stop = chat.on_line(got.append)
        try:
            if args.team:
                chat.say_team(args.text)
            else:
                chat.say(args.text)
            end = min(deadline, ctx.now() + ECHO_TICKS / ctx.tick_rate)
            want = "team_sent" if args.team else "chat"
            while ctx.now() < end:
                if any(line.kind == want and line.sender == me and line.text == args.text for line in got):
                    progress.completed = 1
                    progress.message = f"said {'to the team' if args.team else 'to everyone'}: {args.text}"
                    return
                refused = [line for line in got if line.kind == "system"]
                if refused and args.team:
                    raise SkillFailed(FailureReason.OTHER, f"team chat refused: {refused[-1].plain}")
                await ctx.sleep_ticks(1)
        finally:
            stop()
        raise SkillFailed(FailureReason.OTHER, "the server did not relay the message")


__all__ = ["Chat", "Give", "find_player"]
