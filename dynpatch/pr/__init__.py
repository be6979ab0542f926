"""Stage 7, pr: the PR branch and its description (``nox -s pr``); pushes only when told.

* ``command``: the verb (``PrOptions``, ``run``), in the order of its checks and writes.
* ``branch``: ``git am`` of ``patches/series`` onto the pinned base in a scratch clone,
  re-authored and signed off by the person, optionally signed; placed in the checkout.
* ``rules``: dynamo's title (Conventional Commit) and DCO rules.
* ``identity``: who signs off (options, environment, git config) and how to sign.
* ``validation``: saved stage results for *this* series; the push gate.
* ``description``: the Markdown description in dynamo's template sections.
* ``publish``: the explicit push (never over foreign commits) and the ``gh`` line.
"""
