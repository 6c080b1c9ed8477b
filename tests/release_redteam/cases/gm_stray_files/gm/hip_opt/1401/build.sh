#!/bin/sh
hipcc a.hip
