"""The Event printer against the cells a real kube-apiserver 1.36.2 printed (events.k8s.io: see registry)."""

from __future__ import annotations

from columns_golden import cells

from columns import events


def test_events_of_the_new_api() -> None:
    event = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Node"}, "message": " msg \n",
             "eventTime": "2033-05-18T03:03:20.000000Z", "reportingComponent": "ctrl",
             "series": {"count": 7, "lastObservedTime": "2033-05-18T03:32:20.000000Z"}}
    assert cells(events.EVENTS, event) == ["60s", "", "", "node", "", "ctrl", "msg", "30m", 7, "e"]
    singleton = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p"}}
    assert cells(events.EVENTS, singleton) == ["<unknown>", "", "", "pod/p", "", "", "", "<unknown>", 1, "e"]
