import io

from rich.console import Console
from samples import SUMMARY

from exanet.display import format_number, format_si, headline_table


def test_format_si():
    assert format_si(12_345_678) == "12.35 M"
    assert format_si(2.5e9, "B/s") == "2.50 GB/s"
    assert format_si(999.0) == "999"


def test_format_number():
    assert format_number(1_234_567) == "1,234,567"
    assert format_number(1234.56) == "1,234.6"
    assert format_number(0.123456) == "0.1235"
    assert format_number(False) == "false"
    assert format_number(["dim0", "dim1"]) == "dim0, dim1"
    assert format_number([3, 4]) == "3, 4"


def test_headline_table_shows_the_key_figures():
    output = io.StringIO()
    Console(file=output, width=120).print(headline_table(SUMMARY, title="t"))
    text = output.getvalue()
    assert "123.5 / 110.0 / 321.0 ns" in text
    assert "0.500 (12.50 GB/s each)" in text
    assert "0.490 (12.25 GB/s each)" in text
    assert "25.0% / 50.0%" in text
    assert "(1.0% apart)" in text
    assert "99,000 (12.35 M/s)" in text
    assert "5,000 (2.50 M/s)" in text
    assert "0.00 s" in text


def test_headline_table_of_a_threads_run_shows_its_operations():
    threads = {
        **SUMMARY,
        "operations": 2560,
        "requests_served": 2560,
        "completion_ns": 6724.0,
        "operations_per_us_per_endpoint": 23.79,
        "operation_latency_ns_mean": 548.9,
        "operation_latency_ns_p50": 538.1,
        "operation_latency_ns_p99": 842.8,
        "lane_busy_fraction": 0.882,
        "threads_waiting_mean": 1.9987,
    }
    output = io.StringIO()
    Console(file=output, width=160).print(headline_table(threads, title="t"))
    text = output.getvalue()
    assert "6,724 ns (2,560 operations, 23.79 per us per endpoint)" in text
    assert "548.9 / 538.1 / 842.8 ns" in text
    assert "88.2% / 2 per lane" in text


def test_headline_table_of_a_multi_plane_run_counts_nodes_and_ports():
    planes = {
        **SUMMARY,
        "endpoints": 32,
        "planes": 2,
        "plane_packets_injected_min": 8064,
        "plane_packets_injected_max": 8066,
    }
    output = io.StringIO()
    Console(file=output, width=160).print(headline_table(planes, title="t"))
    assert "32 nodes x 2 NIC ports (plane packets 8,064 to 8,066)" in output.getvalue()
    output = io.StringIO()
    Console(file=output, width=160).print(headline_table({**SUMMARY, "planes": 1}, title="t"))
    assert "NIC ports" not in output.getvalue()
