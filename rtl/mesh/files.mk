# rtl/mesh: the mesh of fabric tiles and the mesh of whole tiles.
RTL_MESH_FABRIC_SRCS := rtl/mesh/wse_fabric_mesh.sv
RTL_MESH_SRCS        := rtl/mesh/wse_mesh.sv
