import pytest

from exanet.units import (
    QuantityError,
    format_bandwidth_bytes_per_s,
    format_size_bytes,
    format_time_ps,
    parse_bandwidth_bytes_per_s,
    parse_size_bytes,
    parse_time_ps,
)


@pytest.mark.parametrize(
    ("text", "picoseconds"),
    [
        ("500ps", 500),
        ("100ns", 100_000),
        ("1.5us", 1_500_000),
        ("1.5\u00b5s", 1_500_000),
        ("1.5\u03bcs", 1_500_000),
        ("2ms", 2_000_000_000),
        ("1s", 1_000_000_000_000),
        ("0ns", 0),
        ("0.001ns", 1),
        ("12.345678ns", 12_346),
        ("1e3ns", 1_000_000),
        (" 20 ns ", 20_000),
    ],
)
def test_parse_time_ps(text, picoseconds):
    assert parse_time_ps(text) == picoseconds


def test_parse_time_is_exact_where_float_is_not():
    # 0.3 * 10**12 is 299999999999.99994 in binary floating point
    assert parse_time_ps("0.3s") == 300_000_000_000
    assert parse_time_ps("4.35us") == 4_350_000


@pytest.mark.parametrize(
    ("text", "bytes_per_s"),
    [
        ("25GB/s", 25_000_000_000),
        ("200Gb/s", 25_000_000_000),
        ("100MB/s", 100_000_000),
        ("1.5TB/s", 1_500_000_000_000),
        ("12.5GiB/s", 13_421_772_800),
        ("1KiB/s", 1024),
        ("10kB/s", 10_000),
        ("1b/s", 0),
        ("4b/s", 1),
    ],
)
def test_parse_bandwidth_bytes_per_s(text, bytes_per_s):
    assert parse_bandwidth_bytes_per_s(text) == bytes_per_s


@pytest.mark.parametrize(
    ("value", "size_bytes"),
    [
        ("256B", 256),
        ("4KiB", 4096),
        ("1KB", 1000),
        ("2MiB", 2 * 2**20),
        ("1GiB", 2**30),
        ("1.5KiB", 1536),
        (512, 512),
        (0, 0),
    ],
)
def test_parse_size_bytes(value, size_bytes):
    assert parse_size_bytes(value) == size_bytes


@pytest.mark.parametrize(
    ("parse", "value"),
    [
        (parse_time_ps, "junk"),
        (parse_time_ps, "100"),
        (parse_time_ps, 100),
        (parse_time_ps, "-5ns"),
        (parse_time_ps, "5 parsecs"),
        (parse_time_ps, "5NS"),
        (parse_bandwidth_bytes_per_s, "25GB"),
        (parse_bandwidth_bytes_per_s, "-25GB/s"),
        (parse_bandwidth_bytes_per_s, "25 GB per s"),
        (parse_size_bytes, "1.5B"),
        (parse_size_bytes, "4kib"),
        (parse_size_bytes, -1),
        (parse_size_bytes, True),
        (parse_size_bytes, "256"),
    ],
)
def test_invalid_quantities_are_rejected(parse, value):
    with pytest.raises(QuantityError):
        parse(value)


def test_error_message_lists_valid_formats():
    with pytest.raises(ValueError, match="junk") as time_error:
        parse_time_ps("junk")
    for unit in ("ps", "ns", "us", "ms", "s"):
        assert unit in str(time_error.value)
    assert '"1.5us"' in str(time_error.value)

    with pytest.raises(ValueError) as bandwidth_error:
        parse_bandwidth_bytes_per_s("fast")
    for unit in ("GB/s", "GiB/s", "Gb/s"):
        assert unit in str(bandwidth_error.value)

    with pytest.raises(ValueError) as size_error:
        parse_size_bytes("big")
    for unit in ("B", "KiB", "KB"):
        assert unit in str(size_error.value)


@pytest.mark.parametrize(
    ("picoseconds", "text"),
    [(0, "0ps"), (500, "500ps"), (50_000, "50ns"), (1_500_000, "1.5us"), (10**12, "1s")],
)
def test_format_time_ps_round_trips(picoseconds, text):
    assert format_time_ps(picoseconds) == text
    assert parse_time_ps(text) == picoseconds


@pytest.mark.parametrize("bytes_per_s", [25_000_000_000, 13_421_772_800, 1, 999])
def test_format_bandwidth_round_trips(bytes_per_s):
    assert parse_bandwidth_bytes_per_s(format_bandwidth_bytes_per_s(bytes_per_s)) == bytes_per_s


@pytest.mark.parametrize(
    ("size_bytes", "text"), [(0, "0B"), (256, "256B"), (2048, "2KiB"), (1000, "1000B")]
)
def test_format_size_bytes(size_bytes, text):
    assert format_size_bytes(size_bytes) == text
    assert parse_size_bytes(text) == size_bytes


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_time_ps, "18446744.073709551616s"),
        (parse_time_ps, "1e400ns"),
        (parse_time_ps, "1e999999999s"),  # an exact value of 10^999999999 would never finish
        (parse_bandwidth_bytes_per_s, "18446744073709551616B/s"),
        (parse_bandwidth_bytes_per_s, "1e999999999Tb/s"),
        (parse_size_bytes, "16777216TiB"),
        (parse_size_bytes, 2**64),
        (parse_size_bytes, "9" * 100_000 + "B"),
    ],
)
def test_quantities_beyond_64_bits_of_core_units(parse, text):
    with pytest.raises(QuantityError) as caught:
        parse(text)
    assert "the core holds it in 64 bits" in caught.value.expected


def test_the_largest_quantities_the_core_holds():
    assert parse_time_ps("18446744.073709551615s") == 2**64 - 1
    assert parse_bandwidth_bytes_per_s("18446744073709551615B/s") == 2**64 - 1
    assert parse_size_bytes(2**64 - 1) == 2**64 - 1
    assert parse_size_bytes("16777215TiB") == 16777215 * 2**40


def test_tiny_quantities_with_huge_negative_exponents():
    assert parse_time_ps("1e-999999999ns") == 0
    assert parse_bandwidth_bytes_per_s("1e-400B/s") == 0
    assert parse_time_ps("0e999999999s") == 0
    with pytest.raises(QuantityError):
        parse_size_bytes("1e-999999999B")  # not a whole number of bytes
