# The data path of libomptarget.so: mapping table, data begin/end/update,
# attachment, mappers, kernel launch, device memory API, INFO output.
rt_data_sources += \
	src/data.h \
	src/mapping.h \
	src/mapping.c \
	src/maplist.c \
	src/attach.c \
	src/target.c \
	src/update.c \
	src/mapper.c \
	src/launch.c \
	src/api.c \
	src/info.c \
	src/devops.c
