"""Teams, team chat and display slots: ``team``, ``teammsg`` / ``tm`` and ``scoreboard objectives setdisplay`` /
``modify``, as vanilla 1.19.2's ``TeamCommand``, ``TeamMsgCommand`` and ``ScoreboardCommand`` run them.

Why here: they change the scoreboard (:mod:`~mirrorcraft.server.commands.scoreboard`) like the other scoreboard
commands; what the clients are told of each change (the ``teams``, ``scoreboard_objective``,
``display_scoreboard`` and ``update_score`` packets) is the game's scoreboard listener, not the command's.

Each ``_run_*`` follows the vanilla method: the same checks in the same order, the same reply keys and
arguments (a team is shown as ``PlayerTeam.getFormattedDisplayName``: ``[display name]`` in the team colour),
the same return value; ``team list``, ``prefix`` and ``suffix`` replies are not broadcast to other ops
(``sendSuccess(..., false)``), the rest are.

Team chat (``TeamMsgCommand.sendMessage``): the source entity's team (``commands.teammsg.failed.noteam``
without one) gets the message, every online player on it plus the sender: the sender ``chat.type.team.sent``
(``-> [team] <sender> message``), the others ``chat.type.team.text`` (``[team] <sender> message``), the team
name with the ``chat.type.team.hover`` hover and a click that suggests ``/teammsg``. Vanilla sends these as
signed player chat bound to the ``team_msg_command_*`` chat types; MirrorCraft signs nothing and sends the
component that chat type decorates to as system chat (as ``msg``: docs/fidelity.md). Returns the number of
players reached.
"""

from __future__ import annotations

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.base import fail, format_list
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.host import CommandSource
from mirrorcraft.server.commands.messaging import MessagingCommands
from mirrorcraft.server.commands.scoreboard import DISPLAY_SLOTS, PlayerTeam

T = C.translatable

#: ``team modify`` options that only change the team's data (their reply and "unchanged" failure keys).
_FLAGS = {
    "friendlyFire": ("friendly_fire", "friendlyfire", "alreadyEnabled", "alreadyDisabled"),
    "seeFriendlyInvisibles": (
        "see_friendly_invisibles",
        "seeFriendlyInvisibles",
        "alreadyEnabled",
        "alreadyDisabled",
    ),
}
_CHOICES = {
    "nametagVisibility": ("name_tag_visibility", "team.visibility"),
    "deathMessageVisibility": ("death_message_visibility", "team.visibility"),
    "collisionRule": ("collision_rule", "team.collision"),
}


class TeamCommands(MessagingCommands):
    """The team family of :class:`~mirrorcraft.server.commands.executor.CommandExecutor`."""

    def _team(self, name: str) -> PlayerTeam:
        """``TeamArgument.getTeam``: ``team.notFound`` for an unknown name."""
        team = self.scoreboard.teams.get(name)
        if team is None:
            raise fail("team.notFound", name)
        return team

    # -- team add|remove|empty|join|leave|list ---------------------------------------------------------
    def _run_teamadd(self, source: CommandSource, c: m.TeamAdd, out: list[Component]) -> int:
        if c.team in self.scoreboard.teams:
            raise fail("commands.team.add.duplicate")
        shown = c.display_name if c.display_name is not None else C.text(c.team)
        team = self.scoreboard.add_team(c.team, shown)
        out.append(T("commands.team.add.success", team.formatted))
        return len(self.scoreboard.teams)

    def _run_teamremove(self, source: CommandSource, c: m.TeamRemove, out: list[Component]) -> int:
        team = self._team(c.team)
        self.scoreboard.remove_team(team)
        out.append(T("commands.team.remove.success", team.formatted))
        return len(self.scoreboard.teams)

    def _run_teamempty(self, source: CommandSource, c: m.TeamEmpty, out: list[Component]) -> int:
        team = self._team(c.team)
        members = list(team.members)
        if not members:
            raise fail("commands.team.empty.unchanged")
        for member in members:
            self.scoreboard.leave(member)
        out.append(T("commands.team.empty.success", len(members), team.formatted))
        return len(members)

    def _run_teamjoin(self, source: CommandSource, c: m.TeamJoin, out: list[Component]) -> int:
        team = self._team(c.team)
        if c.members is None:
            e = self._self_entity(source)
            members = [e.name if e.is_player else e.uuid]  # Entity.getScoreboardName
        else:
            members = self._holders(c.members, source)
        for member in members:
            self.scoreboard.join(member, team)
        if len(members) == 1:
            out.append(T("commands.team.join.success.single", members[0], team.formatted))
        else:
            out.append(T("commands.team.join.success.multiple", len(members), team.formatted))
        return len(members)

    def _run_teamleave(self, source: CommandSource, c: m.TeamLeave, out: list[Component]) -> int:
        members = self._holders(c.members, source)
        for member in members:
            self.scoreboard.leave(member)
        if len(members) == 1:
            out.append(T("commands.team.leave.success.single", members[0]))
        else:
            out.append(T("commands.team.leave.success.multiple", len(members)))
        return len(members)

    def _run_teamlist(self, source: CommandSource, c: m.TeamList, out: list[Component]) -> int:
        if c.team is not None:
            team = self._team(c.team)
            if not team.members:
                out.append(T("commands.team.list.members.empty", team.formatted))
            else:
                names = format_list([C.text(n) for n in team.members])
                out.append(T("commands.team.list.members.success", team.formatted, len(team.members), names))
            return len(team.members)
        teams = list(self.scoreboard.teams.values())
        if not teams:
            out.append(T("commands.team.list.teams.empty"))
        else:
            out.append(
                T("commands.team.list.teams.success", len(teams), format_list([t.formatted for t in teams]))
            )
        return len(teams)

    # -- team modify -------------------------------------------------------------------------------------
    def _run_teammodify(self, source: CommandSource, c: m.TeamModify, out: list[Component]) -> int:
        team = self._team(c.team)
        o, value = c.option, c.value
        if o in ("prefix", "suffix"):  # no "unchanged" check; not broadcast to ops; returns 1
            setattr(team, o, value)
            self.scoreboard.team_changed(team)
            out.append(T(f"commands.team.option.{o}.success", value))
            return 1
        if o == "displayName":
            if team.display_name == value:
                raise fail("commands.team.option.name.unchanged")
            team.display_name = value  # type: ignore[assignment]
            self.scoreboard.team_changed(team)
            out.append(T("commands.team.option.name.success", team.formatted))
            return 0
        if o == "color":
            if team.color == value:
                raise fail("commands.team.option.color.unchanged")
            team.color = str(value)
            self.scoreboard.team_changed(team)
            out.append(T("commands.team.option.color.success", team.formatted, value))
            return 0
        if o in _FLAGS:
            attr, key, already_on, already_off = _FLAGS[o]
            if getattr(team, attr) == value:
                raise fail(f"commands.team.option.{key}.{already_on if value else already_off}")
            setattr(team, attr, bool(value))
            self.scoreboard.team_changed(team)
            out.append(T(f"commands.team.option.{key}.{'enabled' if value else 'disabled'}", team.formatted))
            return 0
        attr, names = _CHOICES[o]
        if getattr(team, attr) == value:
            raise fail(f"commands.team.option.{o}.unchanged")
        setattr(team, attr, value)
        self.scoreboard.team_changed(team)
        out.append(T(f"commands.team.option.{o}.success", team.formatted, T(f"{names}.{value}")))
        return 0

    # -- teammsg -------------------------------------------------------------------------------------------
    def _run_teammsg(self, source: CommandSource, c: m.TeamMsg, out: list[Component]) -> int:
        sender = self._self_entity(source)
        team = self.scoreboard.team_of(sender.name if sender.is_player else sender.uuid)
        if team is None:
            raise fail("commands.teammsg.failed.noteam")
        hover = {"action": "show_text", "contents": T("chat.type.team.hover")}
        click = {"action": "suggest_command", "value": "/teammsg "}
        team_name = C.styled(team.formatted, hoverEvent=hover, clickEvent=click)
        shown = self._display(sender)
        text = self._message_text(c.message, source)
        reached = [
            p for p in self.host.players() if p.uuid == sender.uuid or self.scoreboard.team_of(p.name) is team
        ]
        for p in reached:
            key = "chat.type.team.sent" if p.uuid == sender.uuid else "chat.type.team.text"
            self.host.tell(p, T(key, team_name, shown, text))
        return len(reached)

    # -- scoreboard objectives modify ---------------------------------------------------------------------------
    def _run_objectivesmodify(
        self, source: CommandSource, c: m.ObjectivesModify, out: list[Component]
    ) -> int:
        """``ScoreboardCommand.setDisplayName`` / ``setRenderType``: no reply when nothing changes; returns 0."""
        obj = self._objective(c.objective)
        if c.option == "displayname":
            if obj.display_name != c.value:
                obj.display_name = c.value
                self.scoreboard.objective_changed(obj)
                out.append(T("commands.scoreboard.objectives.modify.displayname", obj.name, obj.formatted))
        elif obj.render_type != c.value:
            obj.render_type = c.value
            self.scoreboard.objective_changed(obj)
            out.append(T("commands.scoreboard.objectives.modify.rendertype", obj.formatted))
        return 0

    # -- scoreboard objectives setdisplay -------------------------------------------------------------------
    def _run_objectivessetdisplay(
        self, source: CommandSource, c: m.ObjectivesSetDisplay, out: list[Component]
    ) -> int:
        slot_name = DISPLAY_SLOTS[c.slot]
        current = self.scoreboard.display.get(c.slot)
        if c.objective is None:
            if current is None:
                raise fail("commands.scoreboard.objectives.display.alreadyEmpty")
            self.scoreboard.set_display(c.slot, None)
            out.append(T("commands.scoreboard.objectives.display.cleared", slot_name))
            return 0
        obj = self._objective(c.objective)
        if current == obj.name:
            raise fail("commands.scoreboard.objectives.display.alreadySet")
        self.scoreboard.set_display(c.slot, obj.name)
        out.append(T("commands.scoreboard.objectives.display.set", slot_name, obj.display_component))
        return 0
