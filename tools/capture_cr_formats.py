"""Records how kube-apiserver judges a custom resource's strings against every format its CRDs support
(kube-openapi's strfmt.Default, as apiextensions-apiserver validates with it): for each format, values
it takes and values it refuses, chosen at the edges of the Go function or pattern behind it (net/mail's
grammar, net.ParseIP and the sloppy parser, net.ParseMAC, url.ParseRequestURI, the hostname pattern's
Unicode classes, the ISBN and Luhn checksums), and names spelled with hyphens, without, and in a case
the registry does not know (stripped, so anything passes).

Usage: python tools/capture_cr_formats.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Every write is a dry-run create in a namespace of its own. The answer kept is the status and the Status
of a refusal (the spec of a success). The CRD is made afresh, so that a reference keeps no schema of an
earlier run. tests/test_cr_formats.py holds ours to them (apiserver/kinds/strformats.py, govalidator.py,
gomail.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import capture_patch_decoding as patching  # its sender and fixture writer serve here too

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "cr_formats.json")

NAMESPACE = "crformats"
GROUP = "crformats.example.io"
COLLECTION = f"/apis/{GROUP}/v1/namespaces/{NAMESPACE}/probes"
JSON = "application/json"

# field name -> format as the schema spells it
FORMATS: dict[str, str] = {
    "bson": "bsonobjectid", "uri": "uri", "mail": "email", "host": "hostname", "v4": "ipv4", "v6": "ipv6",
    "cidr": "cidr", "mac": "mac", "uuid": "uuid", "uuid3": "uuid3", "uuid4": "uuid4", "uuid5": "uuid5",
    "isbn": "isbn", "isbn10": "isbn10", "isbn13": "isbn13", "card": "creditcard", "ssn": "ssn",
    "hex": "hexcolor", "rgb": "rgbcolor", "byte": "byte", "date": "date", "duration": "duration",
    "when": "datetime", "short": "k8s-short-name", "long": "k8s-long-name",
    # spellings: hyphens are ignored by the registry, case is not
    "shortbare": "k8sshortname", "bsonhyphen": "bson-object-id", "mailupper": "Email",
}

_LONG_LABEL = "a" * 63
VALUES: dict[str, list[str]] = {
    "bson": ["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011", "507f1f77bcf86cd79943901",
             "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g", ""],
    "uri": ["http://example.com/a?b#c", "/relative/path", "relative", "*", "http://::1/", "http://[::1]:80/",
            "mailto:a@b", "http://a b/", "http://a/%zz", "http://a/b c", "", "http://host:port/", "//host/x",
            "http://a/\u00e9", "a:b", "http://a:80/", "http://a:8x/", "http://[::1/", "http://user:pw@a/",
            "http://us er@a/", "http://a/?q=%zz", "http://a/#%zz", "1http://a/", "ht-tp://a/", "http:/a", "http:",
            "http://a\u00e9/", "http://a/\u0001", "/%41", "/%4", "?x", "#x", "http://%41/", "http://a%zz/",
            "http://[fe80::1%25eth0]/"],
    "mail": ["a@b", "a@b.c", "x", "", "Bob <a@b.c>", "<a@b.c>", "a@[1.2.3.4]", "a@[01.2.3.4]", "a@[::1]",
             "a@[host]", "g: a@b;", "g: a@b, c@d;", "g:;", '""@x', '"a b"@x', '"a\\"b"@x', "a..b@c", ".a@b",
             "a.@b", "a@b.", "a@b (comment)", "a@b (unclosed", "(c) a@b", "Bob <a@b", "a @b", "a@ b", "a@b c",
             "=?foo?q?x?= <a@b>", "=?utf-8?q?x?= <a@b>", "=?us-a\u017fcii?q?x?= <a@b>", "=?foo?q?=zz?= <a@b>",
             "Bob =?foo?q?x?= <a@b>", "a@b (=?foo?b?eA==?=)", "\u00e9@\u00e9.com", "a\tb@c", "Bob <a@b> x",
             "a,b@c", "a@b,c", "Bob\t<a@b>", '"Bob" <a@b>', "Bob Smith (x) <a@b>", "a@b (x (nested) y)",
             "a@b (x \\) y)", "a@b (x", "a@b ()", "g: a@b; (c)", "g: (c) a@b ;", "g: Bob <a@b>;", "g: a@b",
             "g: h: a@b;;", '"\u00e9"@b', '"a\\\u0001"@b', '"a\u0001"@b', "a@[\u00e9]", "a@[1.2.3.4", "a@[]",
             "a@[::ffff:1.2.3.4]", "a@[fe80::1%eth0]", "<a@b> (c)", "Bob <a@b> (c)", "a@b\t", " a@b",
             "Bob. Smith <a@b>", ".Bob <a@b>", "Bob <.a@b>", "=?utf-8?b?Qm9i?= <a@b>", "=?foo?b?Qm9i?= <a@b>",
             "=?foo?b?Qm9?= <a@b>", "=?foo?x?Qm9i?= <a@b>", "=??q?x?= <a@b>", "x =?foo?q?x?= <a@b>",
             '"x" =?foo?q?x?= <a@b>', "=?ISO-8859-1?Q?a?= <a@b>", "a@b (=?utf-8?q?x?= =?foo?q?y?=)",
             "<a@b>x", "a@b.c.", "\u00e9 <a@b>", "a@\u00e9", "a\u00a0b@c", "a@b\u00a0"],
    "host": ["a", "a.b", "a.bc", "a-", "-a", "a_b", "xn--a.com", "ex$mple.com", "a+b", "\u4f8b\u3048.\u30c6\u30b9\u30c8",
             "\U0001f600.com", "a.\U0001f600\U0001f600", "1.2.3.4", "a.b1", "a..bc", ".a", "a.bc.",
             f"{_LONG_LABEL}.com", f"{_LONG_LABEL}a.com", ".".join([_LONG_LABEL] * 4), "a" * 64, "",
             "a\u0301b", "a b", "\u00e9" * 32 + ".com", "\u00e9" * 31 + ".com", ".".join([_LONG_LABEL] * 3) + "." + "a" * 61,
             ".".join([_LONG_LABEL] * 3) + "." + "a" * 62, "a.b-c", "a-.bc", "a.-bc", "a.b\u00e9", "a.\u00e9\u00e9",
             "a.b$", "\u00b2.com", "a\u0661.com", "A.COM", "a--b", "-", "a-" + "b" * 62, "a" + "b" * 63],
    "v4": ["1.2.3.4", "01.2.3.4", "001.002.003.004", "0000.1.2.3", "::1.2.3.4", "1.2.3", "256.1.1.1",
           "1.2.3.4.5", "::1", "", "1.2.3.4 ", "\u0661.2.3.4"],
    "v6": ["::1", "::", "::ffff:1.2.3.4", "::01.2.3.4", "1.2.3.4", "fe80::1%eth0", "00000::1", "0000::1",
           "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4", "[::1]", "",
           "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", "1::2:3:4:5:6:7:8", ":1::", "1:", "::1.2.3",
           "1:2:3:4:5:6:7:1.2.3.4", "FFFF::", "g::", "::ffff:01.2.3.4", "1.2.3.4:5"],
    "cidr": ["1.2.3.0/24", "01.2.3.0/24", "1.2.3.4/32", "1.2.3.4/33", "::/0", "::1/128", "::1/129", "1.2.3.4",
             "1.2.3.0/024", "1.2.3.0/", "1.2.3.0/+1", "::ffff:1.2.3.4/100", ""],
    "mac": ["00:00:5e:00:53:01", "00-00-5E-00-53-01", "0000.5e00.5301", "00:00:5e:00:53", "00:00-5e:00:53:01",
            "02:00:5e:10:00:00:00:01", "0000.5e00.5301.0000", "00:00:5e:00:53:0g", "00:00:5e:00:53:01:",
            "00005e005301", "00005e00530", "00005e00530g", "02005e1000000001", "00005e0053010", "00.00.5e.00.53.01",
            "0:0:5e:0:53:1", "00:00:5e:00:5", ""],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000",
             "123e4567-e89b-12d3-a456-42661417400", "nope"],
    "uuid3": ["a3bb189e-8bf9-3888-9912-ace4e6543002", "a3bb189e-8bf9-4888-9912-ace4e6543002"],
    "uuid4": ["f47ac10b-58cc-4372-a567-0e02b2c3d479", "f47ac10b-58cc-4372-c567-0e02b2c3d479",
              "f47ac10b-58cc-3372-a567-0e02b2c3d479"],
    "uuid5": ["886313e1-3b8a-5372-9b90-0c9aee199e5d", "886313e1-3b8a-5372-7b90-0c9aee199e5d"],
    "isbn": ["0321751043", "978-0321751041", "0321751044", "080442957X", "080442957x", "978 0 321 75104 1",
             "9780321751042", ""],
    "isbn10": ["0321751043", "0-321-75104-3", "9780321751041", "032175104"],
    "isbn13": ["9780321751041", "978-0321751041", "0321751043", "9780321751040"],
    "card": ["4111111111111111", "4111-1111-1111-1111", "4111 1111 1111 1111", "4111111111111112",
             "5500000000000004", "340000000000009", "30000000000004", "6011000000000004", "3530111333300000",
             "1234567812345670", "x4111111111111111y", ""],
    "ssn": ["123-45-6789", "123 45 6789", "123456789", "123-456789", "123-45-678a", "12345-6789 ", ""],
    "hex": ["#fff", "fff", "#FFFFFF", "#ffff", "#ggg", ""],
    "rgb": ["rgb(1,2,3)", "rgb( 255 , 0 ,0 )", "rgb(256,0,0)", "rgb(01,2,3)", "rgb(1,2)", "RGB(1,2,3)",
            "rgb(1,2,3) "],
    "byte": ["aGVsbG8=", "aGVsbG8", "aGVsbA==", "", "a===", "aGVs\nbG8="],
    "date": ["2024-02-29", "2023-02-29", "2024-1-01"],
    "duration": ["1h", "22 ns", "3 days", "1.5h", "x", "", "\u0661h", "1\u000bday", "1\tday", "2 weeks 3 hrs",
                 "9223372036854775807 ns", "9223372036854775808 ns", "3000000h", "-1h", "1hour", "5 parsecs"],
    "when": ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.123+01:00", "2024-01-02T24:00:00Z", "2024-01-02"],
    "short": ["abc", "a-b", "Abc", "-a", "a-", "a.b", "a" * 63, "a" * 64, ""],
    "long": ["a.b", "a..b", "a" * 70 + ".b", "A.b", ".a", "a.", "a-b.c-d", ("a" * 63 + ".") * 3 + "a" * 61,
             ("a" * 63 + ".") * 3 + "a" * 62, ""],
    "shortbare": ["abc", "Abc"],
    "bsonhyphen": ["507f1f77bcf86cd799439011", "x"],
    "mailupper": ["x"],
}

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": f"probes.{GROUP}"},
       "spec": {"group": GROUP, "scope": "Namespaced",
                "names": {"plural": "probes", "singular": "probe", "kind": "Probe"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        field: {"type": "string", "format": name} for field, name in FORMATS.items()}}}}}}]}}
PROBE = {"apiVersion": f"{GROUP}/v1", "kind": "Probe", "metadata": {"name": "probe"}}

CASES: list[tuple[str, str, str]] = [(f"{field} {json.dumps(value)}", field, value)
                                     for field, values in VALUES.items() for value in values]


def prepare(send: patching.Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    status, body, _ = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                           json.dumps(CRD).encode(), JSON)
    assert status in (201, 409), body
    deadline = time.monotonic() + 60
    while True:  # served once the CRD is established and its handler installed
        status, body, _ = send("POST", COLLECTION + "?dryRun=All", json.dumps({**PROBE, "spec": {}}).encode(), JSON)
        if status == 201 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert status == 201, body


def answer(send: patching.Send, index: int) -> dict[str, Any]:
    """One case's answer: the status, and the Status of a refusal (the spec of a success)."""
    _, field, value = CASES[index]
    body = json.dumps({**PROBE, "spec": {field: value}}).encode()
    status, reply, _ = send("POST", COLLECTION + "?dryRun=All", body, JSON)
    if 200 <= status < 300 and isinstance(reply, dict):
        reply = {"spec": reply.get("spec")}
    return {"status": status, "body": reply}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    patching.forget_crd(send, CRD["metadata"]["name"])
    prepare(send)
    answers = {name: answer(send, i) for i, (name, *_) in enumerate(CASES)}
    patching.record(FIXTURE, answers)


if __name__ == "__main__":
    main(sys.argv[1])
