"""Quantity spellings, each the raw JSON value of a field typed resource.Quantity, for
tools/capture_quantities.py: the int64 fast path keeping a canonical spelling as written (leading
zeros, a bare point, a plus sign, exponents), the inf.Dec path (rounding up to nano units, binary
amounts capped at int64, fractions of binary suffixes), suffixes upstream cannot write back (a decimal
exponent beyond E), white space trimmed, null, numbers, and each of the three parse errors."""

SPELLINGS = [
    '"1.5Gi"', '"1536Mi"', '"0.5Mi"', '"1.0Ki"', '"1024Ki"', '"1048576Ki"', '"1Ki"', '"7Ki"', '"9Ki"', '"16Ki"',
    '"1.5Ki"', '"3.2Ki"', '"1.0001Ki"', '"5.Ki"', '"1.Ki"', '"2Ei"', '"999Ei"', '"9223372036854775808Ki"',
    '"-1.5Gi"', '"+1.5Gi"', '"1023Mi"', '"1025Ki"',
    '"5"', '"+5"', '"001"', '"000"', '"-0"', '"0"', '"0.0"', '"."', '".5"', '"5."', '"+"', '"-"', '"e3"', '"1.G"',
    '"1.5"', '"1.10"', '"0.1"', '"100m"', '"1500m"', '"1000000m"', '"1500000000n"', '"10n"', '"1n"', '"0n"',
    '"1.5n"', '"0.0000000015"', '"0.000000000001"', '"1.23456789012345678"', '"1.0000000001"',
    '"100000000000000000000000000000000000000m"', '"9223372036854775807"', '"9223372036854775808"',
    '"1e1"', '"1e2"', '"1e3"', '"1E3"', '"1e4"', '"1e17"', '"1e18"', '"1e21"', '"1E+30"', '"1e+3"', '"1e-3"',
    '"1E-3"', '"2e-3"', '"10e-3"', '"1e-9"', '"1E-9"', '"1e-10"', '"1e-12"', '"-1e-12"', '"0.5e-9"', '"5e0"',
    '"1e+0"', '"1e-0"', '"0e5"', '"1.23e5"', '"12.3e5"', '"1e4294967296"',
    '"2E"', '"2P"', '"1.5E"', '"1000E"', '"1000000E"', '"0Ki"',
    '" 5Gi "', '"\\t5"',
    '5', '5.5', '1.0', '-0.0', '0', '100000', '1e+30', '1E+30', '12345678901234567890', '1e400', 'null',
    '"1e"', '"1K"', '"1ki"', '"1Ki5"', '"1e99999999999999999999"', '"ee3"',
    '"e-12"', '".e-12"', '"+e-12"', '"-.e-12"',
    '""', '" "', '"1 Gi"', '"1E30E"', '"1.2.3"', '"a"', 'true', '{}', '[1]',
]
