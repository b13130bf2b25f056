/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints cmm_mp:{discovery,segment_state,pamt_lookup,device_fail,
 * takeover}.
 * CREATE_TRACE_POINTS is defined in cmm_mp_main.c only; built out of tree,
 * TRACE_INCLUDE_PATH finds this file through -I$(src) (kmod/Kbuild).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmm_mp

#if !defined(CMM_MP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CMM_MP_TRACE_H

#include <linux/tracepoint.h>

/* A device announced itself: at load, and when it recovers. */
TRACE_EVENT(discovery,
	    TP_PROTO(u32 device, u64 chip_id, u64 capacity, u64 nha,
		     u32 announced),
	    TP_ARGS(device, chip_id, capacity, nha, announced),
	    TP_STRUCT__entry(__field(u32, device)
			     __field(u32, announced)
			     __field(u64, chip_id)
			     __field(u64, capacity)
			     __field(u64, nha)),
	    TP_fast_assign(__entry->device = device;
			   __entry->announced = announced;
			   __entry->chip_id = chip_id;
			   __entry->capacity = capacity;
			   __entry->nha = nha;),
	    TP_printk("chip_id=0x%llx capacity=%llu announced=%u -> device=%u nha=0x%llx",
		      __entry->chip_id, __entry->capacity, __entry->announced,
		      __entry->device, __entry->nha)
);

#define show_seg_state(state)                                      \
	__print_symbolic(state, { CMM_MP_SEG_OFFLINE, "offline" }, \
			 { CMM_MP_SEG_ADDED, "added" },            \
			 { CMM_MP_SEG_ONLINE, "online" },          \
			 { CMM_MP_SEG_SHARED, "shared" })

/* A segment changed state (enum cmm_mp_seg_state). */
TRACE_EVENT(segment_state,
	    TP_PROTO(u32 segment, u32 device, int old_state, int new_state),
	    TP_ARGS(segment, device, old_state, new_state),
	    TP_STRUCT__entry(__field(u32, segment)
			     __field(u32, device)
			     __field(int, old_state)
			     __field(int, new_state)),
	    TP_fast_assign(__entry->segment = segment;
			   __entry->device = device;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;),
	    TP_printk("segment=%u device=%u %s -> %s", __entry->segment,
		      __entry->device,
		      show_seg_state(__entry->old_state),
		      show_seg_state(__entry->new_state))
);

/* One PAMT lookup. */
TRACE_EVENT(pamt_lookup,
	    TP_PROTO(u64 ha, u64 nha, bool valid, u32 device, u64 dev_offset),
	    TP_ARGS(ha, nha, valid, device, dev_offset),
	    TP_STRUCT__entry(__field(u64, ha)
			     __field(u64, nha)
			     __field(u64, dev_offset)
			     __field(u32, device)
			     __field(bool, valid)),
	    TP_fast_assign(__entry->ha = ha;
			   __entry->nha = nha;
			   __entry->dev_offset = dev_offset;
			   __entry->device = device;
			   __entry->valid = valid;),
	    TP_printk("ha=0x%llx nha=0x%llx valid=%d device=%d dev_offset=0x%llx",
		      __entry->ha, __entry->nha, __entry->valid,
		      __entry->valid ? (int)__entry->device : -1,
		      __entry->dev_offset)
);

/* A device was failed or recovered. */
TRACE_EVENT(device_fail,
	    TP_PROTO(u32 device, u64 chip_id, bool failed, u32 offlined,
		     u32 revoked, u32 busy),
	    TP_ARGS(device, chip_id, failed, offlined, revoked, busy),
	    TP_STRUCT__entry(__field(u64, chip_id)
			     __field(u32, device)
			     __field(u32, offlined)
			     __field(u32, revoked)
			     __field(u32, busy)
			     __field(bool, failed)),
	    TP_fast_assign(__entry->chip_id = chip_id;
			   __entry->device = device;
			   __entry->offlined = offlined;
			   __entry->revoked = revoked;
			   __entry->busy = busy;
			   __entry->failed = failed;),
	    TP_printk("device=%u chip_id=0x%llx %s offlined=%u revoked=%u busy=%u",
		      __entry->device, __entry->chip_id,
		      __entry->failed ? "failed" : "recovered",
		      __entry->offlined, __entry->revoked, __entry->busy)
);

/* A segment was taken from a host whose lease expired. */
TRACE_EVENT(takeover,
	    TP_PROTO(u32 segment, u32 from_host, u32 to_host, u64 old_word,
		     u64 new_word),
	    TP_ARGS(segment, from_host, to_host, old_word, new_word),
	    TP_STRUCT__entry(__field(u64, old_word)
			     __field(u64, new_word)
			     __field(u32, segment)
			     __field(u32, from_host)
			     __field(u32, to_host)),
	    TP_fast_assign(__entry->old_word = old_word;
			   __entry->new_word = new_word;
			   __entry->segment = segment;
			   __entry->from_host = from_host;
			   __entry->to_host = to_host;),
	    TP_printk("segment=%u from_host=%u to_host=%u owner=0x%llx -> 0x%llx",
		      __entry->segment, __entry->from_host, __entry->to_host,
		      __entry->old_word, __entry->new_word)
);

#endif /* CMM_MP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cmm_mp_trace
#include <trace/define_trace.h>
