/*
 * An ACPI table that a kernel locked down must not take from the initrd
 * (drivers/acpi/tables.c, acpi_table_upgrade()): tests/run-tests.sh boots
 * the debug kernel with it, with and without lockdown=integrity.
 */
DefinitionBlock ("", "SSDT", 2, "KRSI", "LOCKDOWN", 1)
{
	Name (KRSI, One)
}
