"""The footer of keys, built anew only when the keys it shows change.

Textual's footer mounts all its keys again whenever a screen's bindings may
have changed: on every focus move and every turn, which in a game is many
times a second while the computers play. Each rebuild costs a restyle of
every key, and the footer blinks for nothing. This footer compares what it
would show with what it shows and leaves itself alone when they agree.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that rebuilds itself only for a change the player can see."""

    _shown: tuple[Hashable, ...] | None = None

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            # A key follows the footer's compactness once mounted, restyling itself a second time; a key that
            # is born compact is restyled once.
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            shown = self._keys_to_show(screen)
            if self._bindings_ready and shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)

    def _keys_to_show(self, screen: Screen[Any]) -> tuple[Hashable, ...]:
        """Everything of the screen's active bindings that the footer's keys are made of."""
        app = screen.app
        keys = tuple(
            (key, app.get_key_display(binding), binding.description, binding.action, binding.group, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == app.COMMAND_PALETTE_BINDING
        )
        return (*keys, self.show_command_palette, app.ENABLE_COMMAND_PALETTE)
