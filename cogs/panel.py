"""The private order panel: an embed, ``DynamicItem`` buttons and selects, and a preview image (DESIGN §4).

Custom ids carry everything a click needs (``hexd:enc:{id}:unit:{uid}:{action}``), and the draft rides in a
disabled button's custom id, so a panel works after a restart. Every click reloads the encounter from storage
and re-checks that the clicking user holds the unit: a forged custom id gets a refusal, never another player's
panel. No game rule lives here: the panel model (bot/panel_model.py) says what is offered, the service submits.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import ui

from bot.imaging import preview_png
from bot.panel_model import Draft, Option, PanelModel, build_panel, projected
from bot.panel_skirmish import END, GROUPS, projection
from bot.permissions import holder_of
from bot.results import Refused, refuse
from bot.service import Seen
from cogs.common import bot_of, lang, png_file
from data.i18n import has, t
from rules.errors import GameError
from rules.state import EncounterState

if TYPE_CHECKING:
    from bot.client import HexBotCore

log = logging.getLogger(__name__)

BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "I": ("↺ I", discord.ButtonStyle.secondary),
    "D": ("↻ D", discord.ButtonStyle.secondary),
    "A": ("▲ A", discord.ButtonStyle.primary),
    "back": ("⌫", discord.ButtonStyle.secondary),
}
ID = r"hexd:enc:(?P<enc>\d{1,18}):unit:(?P<unit>[A-Za-z0-9_\-]{1,32}):"


def custom_id(enc: int, unit: str, action: str) -> str:
    return f"hexd:enc:{enc}:unit:{unit}:{action}"


def draft_of(message: discord.Message | None) -> tuple[int, Draft] | None:
    """The draft stored in a panel message (the disabled ``hexd:draft:`` button)."""
    if message is None:
        return None
    for row in message.components:
        for child in getattr(row, "children", ()):
            cid = getattr(child, "custom_id", None)
            if isinstance(cid, str):
                found = Draft.decode(cid)
                if found is not None:
                    return found
    return None


def draft_from_raw(raw: Any) -> Draft:
    """A submitted order back into a draft, so a reopened panel shows what the player gave."""
    if isinstance(raw, str):  # skirmish: one action (or the answer to an overwatch question) as text
        return Draft(choice=raw[:20], action=raw[:80])
    if not isinstance(raw, dict):
        return Draft()
    order: dict[str, Any] = raw  # type: ignore[assignment]
    if "crew_rolls" in order:
        return Draft(crew=tuple(str(c) for c in order.get("crew_rolls") or ()))
    if "pilot_change" in order:
        return Draft(choice=str(order.get("pilot_change") or ""))
    moves = str(order.get("move") or "").replace("-", "")
    fire = tuple(
        f"{f['by']}.{f['weapon']}.{f['target']}" for f in order.get("fire") or () if isinstance(f, dict)
    )
    return Draft(moves=moves, fire=fire)


async def load_panel(
    bot: HexBotCore,
    encounter_id: int,
    user_id: int,
    unit_id: str,
    stored: tuple[int, Draft] | None,
    guild_id: int | None,
    *,
    seen: Seen | None = None,
) -> PanelModel:
    """The panel of ``unit_id`` for ``user_id``, from storage; refuses a unit that is not theirs."""
    service = bot.service
    seen = seen or await service.seen(encounter_id)
    meta, state, phase_no = seen.meta, seen.state, seen.phase_no
    if guild_id is not None and meta.guild_id != guild_id:
        raise refuse("encounter.none", "There is no such encounter.")
    if holder_of(unit_id, seen.parts) != user_id:
        raise refuse("unit.not_yours", "That is not one of your units.")
    owing = meta.status == "running" and not state.over and unit_id in service.owing(state)
    if stored is not None and stored[0] == phase_no:
        draft, submitted = stored[1], False
    else:
        raw: Any = None
        if owing:
            for pending in await service.storage.orders_of(encounter_id, phase_no, user_id):
                if pending.unit_id == unit_id:
                    raw = pending.order.get("raw")
        draft, submitted = draft_from_raw(raw), raw is not None
    return build_panel(
        state,
        unit_id,
        encounter_id=encounter_id,
        phase_no=phase_no,
        draft=draft,
        submitted=submitted,
        owing=owing,
    )


def panel_embed(model: PanelModel, locale: str) -> discord.Embed:
    title = t("panel.title", locale, unit=model.unit_name, round=model.round, phase=model.phase)
    step_key = f"panel.sk.step.{model.step}" if model.ruleset == "skirmish" else f"panel.step.{model.step}"
    lines = [t(step_key, locale), *(_line(key, params, locale) for key, params in model.lines)]
    embed = discord.Embed(
        title=title[:256],
        description="\n".join(lines)[:4096],
        colour=discord.Colour.dark_teal(),
    )
    for name, value in model.stats:
        if name == "overwatch" and has(f"policy.{value}", "en"):  # SK-4.1 policy id → words
            value = t(f"policy.{value}", locale)
        embed.add_field(name=t(f"stat.{name}", locale)[:256], value=value[:1024] or "-", inline=True)
    if model.manta is not None:
        embed.add_field(name=t("stat.manta", locale), value=str(model.manta), inline=True)
    if model.ruleset == "skirmish":
        if model.step in ("orders", "decision"):
            chosen = model.draft.choice if model.step == "decision" else model.draft.action
            embed.add_field(
                name=t("panel.sk.chosen", locale), value=_chosen_text(model, chosen, locale), inline=False
            )
    elif model.step == "orders":
        embed.add_field(
            name=t("panel.moves", locale, max=model.max_moves),
            value=f"`{model.draft.moves or '—'}`",
            inline=False,
        )
        labels = {o.value: o.label for o in model.fire_options}
        fire = "\n".join(labels.get(v, v) for v in model.draft.fire) or t("panel.no_fire", locale)
        embed.add_field(name=t("panel.fire", locale), value=fire[:1024], inline=False)
        moving = {o.value: _option_label(o, locale) for o in model.station_options}
        chosen = [moving[v] for v in model.draft.crew if v in moving]
        if chosen:
            embed.add_field(name=t("panel.stations", locale), value="\n".join(chosen)[:1024], inline=False)
    elif model.step == "crew":
        chosen = ", ".join(model.draft.crew) or t("panel.no_crew_rolls", locale)
        embed.add_field(name=t("panel.crew_rolls", locale), value=chosen[:1024], inline=False)
    elif model.step == "repairs":
        labels = {o.value: _option_label(o, locale) for o in (*model.repair_options, *model.station_options)}
        chosen = "\n".join(labels[v] for v in model.draft.crew if v in labels) or t(
            "panel.no_repairs", locale
        )
        embed.add_field(name=t("panel.repairs", locale), value=chosen[:1024], inline=False)
    elif model.step == "decision":
        embed.add_field(
            name=t("panel.decision", locale), value=f"`{model.draft.choice or '—'}`", inline=False
        )
    footer = "panel.submitted" if model.submitted else "panel.not_submitted"
    embed.set_footer(text=t(footer, locale)[:2048])
    return embed


def _option_label(option: Option, locale: str) -> str:
    """An option's readable text: its i18n frame (``option.key``) around the label, or the label alone."""
    if not option.key:
        return option.label
    target = t(f"station.{option.label}", locale) if option.key == "panel.station" else option.label
    return t(option.key, locale, target=target, **dict(option.params))


def _line(key: str, params: tuple[tuple[str, str], ...], locale: str) -> str:
    values = {k: t(f"panel.sk.kind.{v}", locale) if has(f"panel.sk.kind.{v}", "en") else v for k, v in params}
    return t(key, locale, **values)


def option_label(option: Option, locale: str) -> str:
    if not option.key:
        return option.label[:100]
    return t(option.key, locale, target=option.label, **dict(option.params))[:100]


def _chosen_text(model: PanelModel, chosen: str, locale: str) -> str:
    if not chosen:
        return t("panel.sk.nothing_chosen", locale)
    if chosen == END:
        return t("panel.sk.end", locale)
    found = next((o for o in (*model.action_options, *model.decision_options) if o.value == chosen), None)
    return f"{option_label(found, locale)}  `{chosen}`"[:1024] if found else f"`{chosen}`"[:1024]


def _skirmish_view(model: PanelModel, locale: str, view: ui.View) -> None:
    """One select per kind of action (move, turn, attack, other), End and Submit; a question gets fire/hold."""
    enc, unit = model.encounter_id, model.unit_id
    if model.step == "orders":
        for row, group in enumerate(GROUPS):
            options = [
                discord.SelectOption(
                    label=option_label(o, locale), value=o.value[:100], default=o.value == model.draft.action
                )
                for o in model.action_options
                if o.group == group
            ]
            if options:
                placeholder = t(f"panel.sk.placeholder.{group}", locale)
                view.add_item(
                    OrderSelect(
                        enc, unit, group, options=options, placeholder=placeholder, row=row, max_values=1
                    )
                )
    elif model.step == "decision" and model.decision_options:
        options = [
            discord.SelectOption(
                label=option_label(o, locale), value=o.value[:100], default=o.value == model.draft.choice
            )
            for o in model.decision_options
        ]
        placeholder = t("panel.sk.placeholder.answer", locale)
        view.add_item(
            OrderSelect(enc, unit, "decide", options=options, placeholder=placeholder, row=0, max_values=1)
        )
    if model.step == "wait":
        return
    chosen = model.draft.choice if model.step == "decision" else model.draft.action
    view.add_item(
        OrderButton(
            enc,
            unit,
            "submit",
            label=t("panel.submit", locale),
            style=discord.ButtonStyle.success,
            disabled=not chosen,
            row=4,
        )
    )
    if model.step == "orders":
        view.add_item(
            OrderButton(
                enc, unit, END, label=t("panel.sk.end", locale), style=discord.ButtonStyle.danger, row=4
            )
        )
    view.add_item(
        ui.Button(
            label=(chosen or "·")[:80], custom_id=model.draft.encode(model.phase_no), disabled=True, row=4
        )
    )


def panel_view(model: PanelModel, locale: str) -> ui.View:
    view = ui.View(timeout=None)
    enc, unit = model.encounter_id, model.unit_id
    if model.ruleset == "skirmish":
        _skirmish_view(model, locale, view)
        return view
    if model.step == "orders":
        for action, (label, style) in BUTTONS.items():
            disabled = model.max_moves == 0 or (action == "A" and not model.can_accelerate)
            view.add_item(OrderButton(enc, unit, action, label=label, style=style, disabled=disabled, row=0))
        view.add_item(
            OrderButton(
                enc, unit, "clear", label=t("panel.clear", locale), style=discord.ButtonStyle.danger, row=0
            )
        )
        if model.fire_options:
            options = [
                discord.SelectOption(
                    label=o.label[:100], value=o.value[:100], default=o.value in model.draft.fire
                )
                for o in model.fire_options
            ]
            view.add_item(
                OrderSelect(
                    enc, unit, "fire", options=options, placeholder=t("panel.fire_placeholder", locale), row=1
                )
            )
        if model.station_options:  # EXO-6.5: declared now, effective at the end of the round
            options = [
                discord.SelectOption(
                    label=_option_label(o, locale)[:100], value=o.value, default=o.value in model.draft.crew
                )
                for o in model.station_options
            ]
            placeholder = t("panel.stations_placeholder", locale)
            view.add_item(OrderSelect(enc, unit, "stations", options=options, placeholder=placeholder, row=3))
    elif model.step == "crew" and model.crew_options:
        options = [
            discord.SelectOption(
                label=t(o.key, locale, target=o.label)[:100] if o.key else o.label[:100],
                value=o.value[:100],
                default=o.value in model.draft.crew,
            )
            for o in model.crew_options
        ]
        view.add_item(
            OrderSelect(
                enc, unit, "crew", options=options, placeholder=t("panel.crew_placeholder", locale), row=1
            )
        )
    elif model.step == "repairs":
        for row, (action, offered) in enumerate(
            (("repairs", model.repair_options), ("stations", model.station_options)), start=0
        ):
            if not offered:
                continue
            options = [
                discord.SelectOption(
                    label=_option_label(o, locale)[:100], value=o.value, default=o.value in model.draft.crew
                )
                for o in offered
            ]
            placeholder = t(f"panel.{action}_placeholder", locale)
            view.add_item(OrderSelect(enc, unit, action, options=options, placeholder=placeholder, row=row))
    elif model.step == "decision" and model.decision_options:
        options = [
            discord.SelectOption(
                label=o.label[:100], value=o.value[:100], default=o.value == model.draft.choice
            )
            for o in model.decision_options
        ]
        view.add_item(
            OrderSelect(
                enc,
                unit,
                "decide",
                options=options,
                placeholder=t("panel.decision_placeholder", locale),
                row=1,
                max_values=1,
            )
        )
    if model.step != "wait":
        # no fixed row: the rows of selects above are laid out in the order they were added (discord.py 2.7
        # ignores a select's ``row``: BaseSelect's ``row`` slot shadows the property), and these follow them
        view.add_item(
            OrderButton(
                enc, unit, "submit", label=t("panel.submit", locale), style=discord.ButtonStyle.success
            )
        )
        draft_label = (model.draft.moves or "·")[:80]
        view.add_item(
            ui.Button(label=draft_label, custom_id=model.draft.encode(model.phase_no), disabled=True)
        )
    return view


async def panel_message(
    model: PanelModel, locale: str, bot: HexBotCore, state: EncounterState | None = None
) -> dict[str, Any]:
    """Keyword arguments for send/edit: embed, view and (orders step) the private preview image."""
    embed = panel_embed(model, locale)
    kwargs: dict[str, Any] = {"embed": embed, "view": panel_view(model, locale)}
    files: list[discord.File] = []
    if model.step == "orders":
        if state is None:
            _, state, _ = await bot.service.load(model.encounter_id)
        if model.ruleset == "skirmish":
            path_of = projection(state, model.unit_id, model.draft.action)
        else:
            path_of = projected(state, model.unit_id, model.draft.moves)
        if path_of is not None:
            path, facing, vector = path_of
            png = await preview_png(
                state, model.unit_id, path, facing, vector, viewer=model.side, locale=locale
            )
            if png is not None:
                files.append(png_file(png, "preview.png"))
                embed.set_image(url="attachment://preview.png")
    kwargs["files"] = files
    return kwargs


async def refuse_interaction(interaction: discord.Interaction, error: Exception) -> None:
    await bot_of(interaction).reply_error(interaction, error)


class OrderButton(ui.DynamicItem[ui.Button[Any]], template=ID + r"(?P<action>I|D|A|back|clear|submit|end)"):
    def __init__(
        self,
        enc: int,
        unit: str,
        action: str,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            ui.Button(
                label=label or action,
                style=style,
                custom_id=custom_id(enc, unit, action),
                disabled=disabled,
                row=row,
            )
        )
        self.enc, self.unit, self.action = enc, unit, action

    @classmethod
    async def from_custom_id(  # type: ignore[override]  (narrower item type than DynamicItem's)
        cls, interaction: discord.Interaction, item: ui.Button[Any], match: Any, /
    ) -> OrderButton:
        return cls(int(match["enc"]), match["unit"], match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        # acknowledge first (Discord's 3 s window, our 100 ms bar), then check ownership before anything else
        await interaction.response.defer()
        try:
            seen = await _owns(interaction, self.enc, self.unit)
            await _act(interaction, seen, self.unit, self.action, None)
        except (GameError, Refused) as exc:
            await refuse_interaction(interaction, exc)


class OrderSelect(
    ui.DynamicItem[ui.Select[Any]],
    template=ID + r"(?P<action>fire|crew|decide|move|turn|attack|other|repairs|stations)",
):
    def __init__(
        self,
        enc: int,
        unit: str,
        action: str,
        *,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
        row: int | None = None,
        max_values: int | None = None,
    ) -> None:
        opts = options or [discord.SelectOption(label="-", value="-")]
        super().__init__(
            ui.Select(
                custom_id=custom_id(enc, unit, action),
                options=opts,
                placeholder=(placeholder or "")[:150] or None,
                min_values=1 if action == "decide" or action in GROUPS else 0,
                max_values=max_values or len(opts),
                row=row,
            )
        )
        self.enc, self.unit, self.action = enc, unit, action

    @classmethod
    async def from_custom_id(  # type: ignore[override]  (narrower item type than DynamicItem's)
        cls, interaction: discord.Interaction, item: ui.Select[Any], match: Any, /
    ) -> OrderSelect:
        made = cls(int(match["enc"]), match["unit"], match["action"])
        made.item = item
        return made

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        values = [str(v) for v in (interaction.data or {}).get("values", [])]  # type: ignore[union-attr]
        try:
            seen = await _owns(interaction, self.enc, self.unit)
            await _act(interaction, seen, self.unit, self.action, values)
        except (GameError, Refused) as exc:
            await refuse_interaction(interaction, exc)


async def _owns(interaction: discord.Interaction, enc: int, unit: str) -> Seen:
    """Ownership, checked on every click before anything is read or changed: the clicking user must hold the
    unit in that encounter, and a panel used inside a server must belong to that server (custom ids are forgeable).
    Returns what it read, so the click does not read it again."""
    service = bot_of(interaction).service
    seen = await service.seen(enc)
    if interaction.guild_id is not None and seen.meta.guild_id != interaction.guild_id:
        raise refuse("encounter.none", "There is no such encounter.")
    if holder_of(unit, seen.parts) != interaction.user.id:
        log.info("panel refused user=%s encounter=%s", interaction.user.id, enc)
        raise refuse("unit.not_yours", "That is not one of your units.")
    return seen


async def _act(
    interaction: discord.Interaction, seen: Seen, unit: str, action: str, values: list[str] | None
) -> None:
    bot = bot_of(interaction)
    locale = lang(interaction)
    stored = draft_of(interaction.message)
    model = await load_panel(
        bot, seen.meta.id, interaction.user.id, unit, stored, interaction.guild_id, seen=seen
    )
    if action == "submit":
        await _submit(interaction, model, locale, seen)
        return
    if model.step == "wait":
        raise refuse("unit.not_awaiting", "This unit takes no orders now.", unit=model.unit_name)
    draft = model.draft
    if action == END and model.ruleset == "skirmish":
        # SK-1.1: ending the activation needs no choice, so the button submits at once
        await _submit(interaction, replace(model, draft=replace(draft, action=END)), locale, seen)
        return
    if values is not None and action in GROUPS:
        offered = {o.value for o in model.action_options if o.group == action}
        picked = next((v for v in values if v in offered), "")
        draft = replace(draft, action=picked)
    elif values is not None and action in ("repairs", "stations"):
        offered = model.repair_options if action == "repairs" else model.station_options
        known = {o.value for o in offered}
        kept = tuple(v for v in draft.crew if v not in known)  # the other select's choices stay
        draft = replace(draft, crew=(*kept, *(v for v in values if v in known))[:6])
    elif values is not None:
        allowed = {
            "fire": {o.value for o in model.fire_options},
            "crew": {o.value for o in model.crew_options},
            "decide": {o.value for o in model.decision_options},
        }[action]
        picked = tuple(v for v in values if v in allowed)
        if action == "fire":
            draft = Draft(draft.moves, picked, draft.crew, draft.choice, draft.action)
        elif action == "crew":
            draft = Draft(draft.moves, draft.fire, picked, draft.choice, draft.action)
        else:
            draft = Draft(draft.moves, draft.fire, draft.crew, picked[0] if picked else "", draft.action)
    else:
        draft = model.apply(action)
    model = replace(model, draft=draft)
    kwargs = await panel_message(model, locale, bot, seen.state)
    files = kwargs.pop("files")
    await _edit_panel(interaction, files, kwargs)


async def _edit_panel(
    interaction: discord.Interaction, files: list[discord.File], kwargs: dict[str, Any]
) -> None:
    """Edit the panel the click came from, through the interaction's webhook (works for DMs and ephemerals)."""
    if interaction.message is None:
        await interaction.edit_original_response(attachments=files, **kwargs)
        return
    await interaction.followup.edit_message(interaction.message.id, attachments=files, **kwargs)


async def _submit(interaction: discord.Interaction, model: PanelModel, locale: str, seen: Seen) -> None:
    bot = bot_of(interaction)
    if model.step == "wait":
        raise refuse("unit.not_awaiting", "This unit takes no orders now.", unit=model.unit_name)
    result = await bot.service.submit(
        model.encounter_id,
        interaction.user.id,
        model.unit_id,
        model.raw_order(),
        phase_no=model.phase_no,
        seen=seen,
    )
    # durable now: start resolving (if this was the last order), then tell the player while it runs
    if result.all_in:
        bot.spawn(
            bot.resolve_and_announce(
                model.encounter_id, expected_phase_no=result.phase_no, seen=seen, all_in=True
            ),
            what="resolution",
        )
    elif bot.announcer is not None:
        bot.spawn(bot.announcer.refresh_status(model.encounter_id), what="status")
    key = "orders.amended" if result.amended else "orders.received"
    await interaction.followup.send(t(key, locale, unit=model.unit_name), ephemeral=True)
    # the draft did not change: keep the preview image already on the panel, update the text and buttons
    done = replace(model, submitted=True)
    embed = panel_embed(done, locale)
    if interaction.message is not None and interaction.message.attachments:
        embed.set_image(url=f"attachment://{interaction.message.attachments[0].filename}")
    if interaction.message is None:
        await interaction.edit_original_response(embed=embed, view=panel_view(done, locale))
    else:
        await interaction.followup.edit_message(
            interaction.message.id, embed=embed, view=panel_view(done, locale)
        )
