"""Field types shared by the config schema's sections: quantities written with units and held in
core units (integer picoseconds, bytes, bytes per second), counts bounded by the core's integer
types, and the base of every section."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictInt,
    WithJsonSchema,
)

from exanet.units import (
    U64_MAX,
    format_bandwidth_bytes_per_s,
    format_frequency_hz,
    format_packet_rate_per_s,
    format_size_bytes,
    format_time_ps,
    parse_bandwidth_bytes_per_s,
    parse_frequency_hz,
    parse_packet_rate_per_s,
    parse_size_bytes,
    parse_time_ps,
    quantity_json_schema,
)

U16_MAX = 2**16 - 1
U32_MAX = 2**32 - 1

#: A count the core holds in 32 bits (routers, ports, ranks, endpoint ids).
U32 = Annotated[StrictInt, Field(ge=0, le=U32_MAX)]
PositiveU32 = Annotated[StrictInt, Field(ge=1, le=U32_MAX)]
#: A seed: any 64-bit unsigned integer.
U64 = Annotated[StrictInt, Field(ge=0, le=U64_MAX)]

# Each quantity's JSON Schema is the string a config file writes ("100ns"), not the core int.
TimePs = Annotated[
    int,
    BeforeValidator(parse_time_ps),
    PlainSerializer(format_time_ps),
    WithJsonSchema(quantity_json_schema("time")),
]
PositiveTimePs = Annotated[TimePs, Field(gt=0)]
BandwidthBytesPerS = Annotated[  # a bandwidth is never zero
    int,
    BeforeValidator(parse_bandwidth_bytes_per_s),
    PlainSerializer(format_bandwidth_bytes_per_s),
    Field(gt=0),
    WithJsonSchema(quantity_json_schema("bandwidth")),
]
#: The fastest packet-rate limit, one packet per femtosecond: the core's window arithmetic
#: (time x rate, in 128 bits) stays exact below it.
MAX_PACKET_RATE_PER_S = 10**15
PacketRatePerS = Annotated[  # a limit is never zero: leave it out for none
    int,
    BeforeValidator(parse_packet_rate_per_s),
    PlainSerializer(format_packet_rate_per_s),
    Field(gt=0, le=MAX_PACKET_RATE_PER_S),
    WithJsonSchema(quantity_json_schema("packet_rate")),
]
FrequencyHz = Annotated[  # a clock is never stopped
    int,
    BeforeValidator(parse_frequency_hz),
    PlainSerializer(format_frequency_hz),
    Field(gt=0),
    WithJsonSchema(quantity_json_schema("frequency")),
]
SizeBytes = Annotated[
    int,
    BeforeValidator(parse_size_bytes),
    PlainSerializer(format_size_bytes),
    WithJsonSchema(quantity_json_schema("size")),
]
PositiveSizeBytes = Annotated[SizeBytes, Field(gt=0)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)
