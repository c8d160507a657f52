"""The outbox: what the channel and the players must be shown, claimed and recorded so it goes out once, retried
while Discord refuses it, and resumed after a crash (DESIGN §4 flow).

Delivery is process logic, so it lives here and is tested without Discord: it speaks to Discord only through
:class:`~bot.outbox.sender.Sender`, which the announcements cog implements (turning a step into a post, a status
into text, a panel into a message).

* :mod:`bot.outbox.claims`: a post that must appear once is claimed in storage before it is sent and recorded once
  it is, so two processes never both send it; a claim left by a process that died is taken back after
  :data:`~bot.outbox.claims.CLAIM_STALE`;
* :mod:`bot.outbox.queue`: one worker per encounter posts its jobs in order;
* :mod:`bot.outbox.retries`: a refused post is retried with backoff, from what storage holds;
* :mod:`bot.outbox.outbox`: the steps owed to the channel, the phase's status and panels, the winner; catching up
  and resuming after a start.
"""

from bot.outbox.claims import CLAIM_STALE, Claims
from bot.outbox.outbox import ANNOUNCED, NOTHING_POSTED, RESUME_AT_ONCE, Host, Outbox, player_key
from bot.outbox.queue import Job, PostQueue, Queued, StatusShown, StepPost
from bot.outbox.records import LAST_POST, POST, STATUS, STATUS_ON_POST, STATUS_OWN, status_kind, status_phase
from bot.outbox.retries import RETRY_BACKOFF, Retries
from bot.outbox.sender import APART, ChannelUnavailable, Sender, Sent

__all__ = [
    "ANNOUNCED",
    "APART",
    "CLAIM_STALE",
    "LAST_POST",
    "NOTHING_POSTED",
    "POST",
    "RESUME_AT_ONCE",
    "RETRY_BACKOFF",
    "STATUS",
    "STATUS_ON_POST",
    "STATUS_OWN",
    "ChannelUnavailable",
    "Claims",
    "Host",
    "Job",
    "Outbox",
    "PostQueue",
    "Queued",
    "Retries",
    "Sender",
    "Sent",
    "StatusShown",
    "StepPost",
    "player_key",
    "status_kind",
    "status_phase",
]
