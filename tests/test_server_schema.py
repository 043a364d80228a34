"""The table server against its own /openapi.json (SERVER.md): schemathesis generates
requests for every operation (the stream excepted: it never ends), valid and invalid,
as the master and as a hero, and no reply may be a 500; every reply is one of the
statuses the schema declares, with the declared content type and shape. The app runs
in-process (its lifespan started by schemathesis' ASGI client) on a real demo file."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ledger.application import Ledger
from ledger.interface.server.app import create_app
from ledger.interface.server.seating import Doorman
from tests.server_support import table

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = 20  # per operation, seat and mode: the whole file stays well under 30 s


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    seated = table(tmp_path_factory.mktemp("schema"))
    app = create_app(str(seated.db))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    yield seated, app, schema
    asgi.shutdown_lifespans()  # closes the app's file


def operations(schema) -> list:
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if not op.path.endswith("/stream")]


def test_the_schema_lists_every_endpoint_but_the_stream_is_left_to_the_live_tests(api):
    _seated, _app, schema = api
    paths = {(op.method.upper(), op.path) for op in (r.ok() for r in schema.get_all_operations())}
    base = "/api/campaigns/{campaign}"
    assert paths == {("GET", base + "/zones"), ("GET", base + "/cards/{card}"), ("GET", base + "/history"),
                     ("GET", base + "/explain/{seq}"), ("GET", base + "/checkpoint"), ("POST", base + "/actions"),
                     ("GET", base + "/stream"), ("GET", base + "/catalog")}


@pytest.mark.parametrize("who", ["master", "ana"])
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
def test_no_generated_request_gets_a_500_or_an_undeclared_reply(api, who, mode):
    seated, app, schema = api
    headers = seated.headers(who)
    seen: dict[str, set[int]] = {}
    # the campaign as the seat's own (most requests reach the endpoint's work), and as generated
    app.state.doorman = Doorman(limit=10**9)  # every generated request is from one address

    def exercise(strategy) -> None:
        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def check(case) -> None:
            response = case.call(headers=headers)
            seen.setdefault(case.operation.label, set()).add(response.status_code)
            case.validate_response(response, checks=CHECKS)

        check()

    # the campaign as the seat's own (most requests reach the endpoint's work), and as generated
    for campaign in ({"campaign": "demo"}, None):
        for operation in operations(schema):
            if mode is GenerationMode.NEGATIVE and campaign and operation.path.endswith(("/checkpoint", "/catalog")):
                continue  # nothing of it left to get wrong
            exercise(operation.as_strategy(generation_mode=mode, path_parameters=campaign))
    assert len(seen) == 7
    if mode is GenerationMode.POSITIVE:  # the requests reached the work, not only the door
        assert any(200 in statuses for statuses in seen.values()), seen


def test_the_generated_requests_left_a_file_that_verifies(api):
    seated, _app, _schema = api
    ledger = Ledger.open(seated.db)
    try:
        cid = ledger.resolve("demo")
        assert ledger.last_seq(cid) >= 36
    finally:
        ledger.close()
    seated.ledger("verify")
