/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_regs.h - the tile registers on the management network
 * (docs/register-map.md): byte addresses for wse_reg_read() and
 * wse_reg_write(), and the bits of TILE_CTRL and TILE_STATUS. The
 * addresses mirror rtl/fabric/wse_mgmt_pkg.sv (make test-wire checks them).
 */
#ifndef WSEMU_WSE_REGS_H
#define WSEMU_WSE_REGS_H

#define WSE_REG_TILE_ID 0x0u     /* RO: [31:16] WSE_TILE_ID_MAGIC, {y, x} below */
#define WSE_REG_TILE_CTRL 0x4u   /* RW: WSE_TILE_CTRL_* */
#define WSE_REG_TILE_STATUS 0x8u /* RO: WSE_TILE_STATUS_*, [31:16] failure code */
#define WSE_REG_ROUTE_BASE 0x1000u /* + 4 * color: the route entry */
#define WSE_REG_CNT_BASE 0x2000u   /* + 16 * port + 0/4/8: forwarded, stalled, dropped */
#define WSE_REG_TILE_BUS 0x10000u  /* and above: the tile-side bus */
#define WSE_TILE_ID_MAGIC 0x5753u  /* "WS" */

#define WSE_TILE_CTRL_HALT 0x1u       /* the core does not fetch (set after reset) */
#define WSE_TILE_CTRL_CORE_RESET 0x2u /* the core is held in reset */
#define WSE_TILE_CTRL_CNT_CLEAR 0x4u  /* write 1: clear the router counters */

#define WSE_TILE_STATUS_HALTED 0x1u /* HALT set and the last instruction done */
#define WSE_TILE_STATUS_DONE 0x2u   /* the program wrote its end to tohost */
#define WSE_TILE_STATUS_FAILED 0x4u /* DONE with a failure code */

#endif
