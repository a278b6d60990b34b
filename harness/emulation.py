"""The devices and links the page benchmarks emulate through the DevTools protocol, and
how each profile is applied to a page (and its worker) before it loads."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import BrowserContext, CDPSession, Page

MBIT = 1_000_000 / 8  # bytes per second


@dataclass(frozen=True)
class Profile:
    """A device and link to emulate, and how the site is served to it."""

    cpu_rate: float  # Emulation.setCPUThrottlingRate; 1 is the machine as it is
    network: dict[str, float] | None  # Network.emulateNetworkConditions, None for none
    gzip: bool  # served like GitHub Pages (PagesServer) rather than by build.py's server


PROFILES = {
    "unthrottled": Profile(1, None, False),
    # Lighthouse's mobile preset: slow 4G (150 ms, 1.6 Mbit/s down, 750 kbit/s up), 4× CPU.
    "low_end": Profile(4, {"latency": 150, "downloadThroughput": 1.6 * MBIT, "uploadThroughput": 0.75 * MBIT}, True),
}


def emulate(context: BrowserContext, page: Page, profile: Profile) -> None:
    """Slow the page (and its worker) and its link down as the profile says, before it loads."""
    if profile.cpu_rate == 1 and profile.network is None:
        return
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile.cpu_rate})
    if profile.network is not None:
        emulate_network(cdp, profile.network)


def emulate_network(cdp: CDPSession, network: dict[str, float]) -> None:
    """The link alone, on a page's session: Chromium applies it to the page's worker too."""
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, **network})
